import { empty, fields, id, type RoomHandler } from './room-handler';
import { REACTIONS, type RoomMethod } from './room.protocol';

/** The methods of hands, reactions and the hosts' controls. */
type ModerationMethod =
  | 'raiseHand'
  | 'lowerHand'
  | 'lowerAllHands'
  | 'sendReaction'
  | 'mutePeer'
  | 'muteAll'
  | 'askToUnmute'
  | 'stopMedia'
  | 'setPermissions'
  | 'setLocked'
  | 'makeCoHost';

const peer = fields(['peerId'], { peerId: id });

/** Signalling handlers of hands, reactions and moderation (spread into ROOM_HANDLERS). */
export const MODERATION_HANDLERS: { [M in ModerationMethod & RoomMethod]: RoomHandler<M> } = {
  raiseHand: {
    schema: empty,
    run: (session, _data, rooms) => ({ hands: rooms.moderation.raiseHand(session) }),
  },
  lowerHand: {
    schema: fields([], { peerId: id }),
    run: (session, data, rooms) => ({ hands: rooms.moderation.lowerHand(session, data.peerId) }),
  },
  lowerAllHands: {
    schema: empty,
    run: (session, _data, rooms) => ({ hands: rooms.moderation.lowerAllHands(session) }),
  },
  sendReaction: {
    schema: fields(['emoji'], { emoji: { enum: [...REACTIONS] } }),
    run(session, data, rooms) {
      rooms.moderation.reactions.send(session, data.emoji);
      return {};
    },
  },
  mutePeer: {
    schema: peer,
    async run(session, data, rooms) {
      await rooms.moderation.mutePeer(session, data.peerId);
      return {};
    },
  },
  muteAll: {
    schema: empty,
    run: async (session, _data, rooms) => ({ muted: await rooms.moderation.muteAll(session) }),
  },
  askToUnmute: {
    schema: peer,
    run(session, data, rooms) {
      rooms.moderation.askToUnmute(session, data.peerId);
      return {};
    },
  },
  stopMedia: {
    schema: fields(['peerId', 'source'], { peerId: id, source: { enum: ['camera', 'screen'] } }),
    run(session, data, rooms) {
      rooms.moderation.stopMedia(session, data.peerId, data.source);
      return {};
    },
  },
  setPermissions: {
    schema: fields([], { unmute: { type: 'boolean' }, video: { type: 'boolean' }, screen: { type: 'boolean' } }),
    run: (session, data, rooms) => ({ permissions: rooms.moderation.setPermissions(session, data) }),
  },
  setLocked: {
    schema: fields(['locked'], { locked: { type: 'boolean' } }),
    run: (session, data, rooms) => ({ locked: rooms.moderation.setLocked(session, data.locked) }),
  },
  makeCoHost: {
    schema: peer,
    run(session, data, rooms) {
      rooms.moderation.makeCoHost(session, data.peerId);
      return {};
    },
  },
};
