import { AppError } from '../shared/errors';
import { objectValidator } from '../shared/validation';
import { MODERATION_HANDLERS } from './moderation.handlers';
import { empty, fields, id, params, type RoomHandler } from './room-handler';
import { POLL_HANDLERS } from './room-polls.handlers';
import { BREAKOUT_HANDLERS } from './room-breakouts.handlers';
import type { RoomMethod } from './room.protocol';
import { ROOM_LIMITS } from './room.protocol';
import type { PeerInRoom } from './room';
import { maySendMedia, type RoomsService } from './rooms.service';

type Handlers = { [M in RoomMethod]: RoomHandler<M> };

function assertMayProduce(session: PeerInRoom): void {
  if (!maySendMedia(session)) throw AppError.missingScope('host', 'Webinar attendees watch and chat; only hosts send media');
}

/** The signalling methods of the room, each a small function (mediasoup-demo's model without its switch). */
export const ROOM_HANDLERS: Handlers = {
  getRouterRtpCapabilities: {
    schema: empty,
    beforeJoin: true,
    run: ({ room }) => ({ rtpCapabilities: room.media.rtpCapabilities }),
  },
  join: {
    schema: fields(['rtpCapabilities'], { rtpCapabilities: params }),
    beforeJoin: true,
    run: (session, data, rooms) => rooms.breakouts.rejoin(session, rooms.join(session, data.rtpCapabilities)),
  },
  createTransport: {
    schema: fields(['direction'], { direction: { enum: ['send', 'recv'] } }),
    async run(session, { direction }) {
      if (direction === 'send') assertMayProduce(session);
      const transport = await session.room.media.createTransport(session.peer.id, direction);
      // The consumers of what others send go out after this answer, so the page has its receive transport.
      if (direction === 'recv') setImmediate(() => void session.room.consumeExisting(session.peer));
      return transport;
    },
  },
  connectTransport: {
    schema: fields(['transportId', 'dtlsParameters'], { transportId: id, dtlsParameters: params }),
    async run({ room, peer }, data) {
      await room.media.connectTransport(peer.id, data.transportId, data.dtlsParameters);
      return {};
    },
  },
  restartIce: {
    schema: fields(['transportId'], { transportId: id }),
    run: async ({ room, peer }, data) => ({ iceParameters: await room.media.restartIce(peer.id, data.transportId) }),
  },
  produce: {
    schema: fields(['transportId', 'kind', 'rtpParameters', 'source'], {
      transportId: id,
      kind: { enum: ['audio', 'video'] },
      rtpParameters: params,
      source: { enum: ['microphone', 'camera', 'screen'] },
      paused: { type: 'boolean' },
    }),
    async run(session, data, rooms) {
      assertMayProduce(session);
      if (data.source === 'screen' && session.peer.admission.switchedOff.includes('screenshare')) {
        throw new AppError('forbidden', 'Screen sharing is switched off for this embedded room');
      }
      if ((data.source === 'microphone') !== (data.kind === 'audio')) {
        throw AppError.invalid([{ param: 'source', message: `cannot be ${data.source} for ${data.kind}` }]);
      }
      rooms.moderation.assertMayProduce(session, data.source, data.paused ?? false);
      const producerId = await session.room.produce(session.peer, { ...data, paused: data.paused ?? false });
      return { producerId };
    },
  },
  closeProducer: {
    schema: fields(['producerId'], { producerId: id }),
    run({ room, peer }, data) {
      room.closeProducer(peer, data.producerId);
      return {};
    },
  },
  pauseProducer: {
    schema: fields(['producerId'], { producerId: id }),
    async run({ room, peer }, data) {
      await room.setProducerPaused(peer, data.producerId, true);
      return {};
    },
  },
  resumeProducer: {
    schema: fields(['producerId'], { producerId: id }),
    async run(session, data, rooms) {
      rooms.moderation.assertMayResume(session, data.producerId);
      await session.room.setProducerPaused(session.peer, data.producerId, false);
      return {};
    },
  },
  resumeConsumer: {
    schema: fields(['consumerId'], { consumerId: id }),
    async run({ room, peer }, data) {
      await room.media.setConsumerPaused(peer.id, data.consumerId, false);
      return {};
    },
  },
  pauseConsumer: {
    schema: fields(['consumerId'], { consumerId: id }),
    async run({ room, peer }, data) {
      await room.media.setConsumerPaused(peer.id, data.consumerId, true);
      return {};
    },
  },
  setConsumerLayers: {
    schema: fields(['consumerId', 'spatialLayer'], {
      consumerId: id,
      spatialLayer: { type: 'integer', minimum: 0, maximum: 3 },
      temporalLayer: { type: 'integer', minimum: 0, maximum: 3 },
    }),
    async run({ room, peer }, data) {
      await room.media.setConsumerLayers(peer.id, data.consumerId, data.spatialLayer, data.temporalLayer);
      return {};
    },
  },
  sendChat: {
    schema: fields(['text'], { text: { type: 'string', minLength: 1, maxLength: ROOM_LIMITS.maxChatLength, format: 'multi-line' } }),
    run: (session, data, rooms) => ({ message: rooms.chat.send(session, data.text) }),
  },
  leave: {
    schema: empty,
    beforeJoin: true,
    run(session, _data, rooms) {
      rooms.leave(session, 'left');
      return {};
    },
  },
  admit: {
    schema: fields(['peerId'], { peerId: id }),
    run(session, data, rooms) {
      rooms.admit(session, data.peerId);
      return {};
    },
  },
  deny: {
    schema: fields(['peerId'], { peerId: id }),
    run(session, data, rooms) {
      rooms.deny(session, data.peerId);
      return {};
    },
  },
  remove: {
    schema: fields(['peerId'], { peerId: id }),
    run(session, data, rooms) {
      rooms.remove(session, data.peerId);
      return {};
    },
  },
  setCaptions: {
    schema: fields(['on'], { on: { type: 'boolean' } }),
    run: (session, data, rooms) => rooms.setCaptions(session, data.on),
  },
  startRecording: {
    schema: empty,
    run: (session, _data, rooms) => rooms.startRecording(session),
  },
  stopRecording: {
    schema: empty,
    run: (session, _data, rooms) => rooms.stopRecording(session),
  },
  endMeeting: {
    schema: empty,
    run(session, _data, rooms) {
      rooms.endMeeting(session);
      return {};
    },
  },
  ...MODERATION_HANDLERS,
  ...POLL_HANDLERS,
  ...BREAKOUT_HANDLERS,
};

const validators = new Map(Object.entries(ROOM_HANDLERS).map(([method, handler]) => [method, objectValidator<never>(handler.schema)]));

/** True for a method of the room protocol. */
export function isRoomMethod(method: unknown): method is RoomMethod {
  return typeof method === 'string' && Object.hasOwn(ROOM_HANDLERS, method);
}

/** Validates `data` for `method` and runs it for the session's peer; errors are AppErrors for the adapter to report. */
export async function handleRoomRequest(session: PeerInRoom, method: RoomMethod, data: unknown, rooms: RoomsService): Promise<unknown> {
  const handler = ROOM_HANDLERS[method] as RoomHandler<RoomMethod>;
  const valid = validators.get(method)!(data ?? {});
  if (session.peer.state === 'left') throw AppError.conflict('You have left the room');
  if (!handler.beforeJoin && session.peer.state !== 'joined') {
    throw AppError.conflict(
      session.peer.state === 'waiting' ? 'You are in the waiting room until a host lets you in' : 'Join the room first',
    );
  }
  return handler.run(session, valid, rooms);
}
