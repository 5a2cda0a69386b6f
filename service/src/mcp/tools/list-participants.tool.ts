import type { Room } from '../../rooms/room';
import type { JsonSchema } from '../../shared/validation';
import { meetingArgument } from '../mcp.views';
import { defineTool } from '../mcp.tool';

const mediaState: JsonSchema = {
  type: 'string',
  enum: ['on', 'muted', 'off'],
  description: 'on: sending; muted: the producer is paused; off: not sending.',
};

/** Who is in a live room now, hosts first, each with role, raised hand and media state. */
function participantsOf(room: Room): Record<string, unknown>[] {
  const hands = new Map(room.hands.list().map((hand) => [hand.peerId, hand]));
  const state = (entry: { paused: boolean } | undefined) => (!entry ? 'off' : entry.paused ? 'muted' : 'on');
  return room.joined().map((peer) => {
    const hand = hands.get(peer.id);
    return {
      participant_id: peer.participantId,
      name: peer.name,
      role: peer.coHost ? 'co-host' : peer.role,
      hand_raised: hand !== undefined,
      hand_order: hand?.order ?? null,
      hand_raised_at: hand?.raisedAt ?? null,
      microphone: state(peer.media.microphone),
      camera: state(peer.media.camera),
      screen: state(peer.media.screen),
    };
  });
}

/** list_participants: who is in a live meeting's room right now, with raised hands in order and media state. */
export const listParticipantsTool = defineTool<{ meeting: string }>({
  name: 'list_participants',
  title: 'List the participants of a live meeting',
  description:
    'Lists who is in a meeting room right now: name, role (host, co-host, guest), whether their hand is raised and its place ' +
    'in the queue (hand_order 1 went up first), and whether their microphone, camera and screen share are on, muted or off. ' +
    '`raised_hands` repeats the raised hands in order. A meeting nobody is in answers live: false with no participants. ' +
    'Pass the meeting id (mtg_...) or the join code (abc-defg-hij).',
  scope: 'meetings:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { type: 'object', additionalProperties: false, required: ['meeting'], properties: { meeting: meetingArgument } },
  outputSchema: {
    type: 'object',
    required: ['meeting_id', 'status', 'live', 'locked', 'participants', 'raised_hands'],
    properties: {
      meeting_id: { type: 'string' },
      status: { type: 'string', enum: ['scheduled', 'live', 'ended', 'cancelled'] },
      live: { type: 'boolean', description: 'True while the room has people in it.' },
      locked: { type: 'boolean', description: 'True while a host has locked the meeting (nobody new joins).' },
      participants: {
        type: 'array',
        items: {
          type: 'object',
          required: ['participant_id', 'name', 'role', 'hand_raised', 'hand_order', 'hand_raised_at', 'microphone', 'camera', 'screen'],
          properties: {
            participant_id: { type: ['string', 'null'] },
            name: { type: 'string' },
            role: { type: 'string', enum: ['host', 'co-host', 'guest'] },
            hand_raised: { type: 'boolean' },
            hand_order: { type: ['integer', 'null'], minimum: 1 },
            hand_raised_at: { type: ['string', 'null'], format: 'date-time' },
            microphone: mediaState,
            camera: mediaState,
            screen: mediaState,
          },
        },
      },
      raised_hands: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'order', 'raised_at'],
          properties: {
            name: { type: 'string' },
            order: { type: 'integer', minimum: 1 },
            raised_at: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
  },
  run({ principal, services }, { meeting }) {
    const found = services.meetings.get(principal, meeting);
    const room = services.rooms.liveRooms().find((r) => r.meeting.id === found.id && !r.closed);
    const raised = room?.hands.list() ?? [];
    return {
      structured: {
        meeting_id: found.id,
        status: found.status,
        live: room !== undefined && room.joined().length > 0,
        locked: room?.controls.locked ?? false,
        participants: room ? participantsOf(room) : [],
        raised_hands: raised.map((hand) => ({ name: hand.name, order: hand.order, raised_at: hand.raisedAt })),
      },
    };
  },
});
