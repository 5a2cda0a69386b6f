import { BREAKOUT_LIMITS, type BreakoutMethods } from '../breakouts/breakouts.protocol';
import { empty, fields, id, type RoomHandler } from './room-handler';

const name = { type: 'string', minLength: 1, maxLength: BREAKOUT_LIMITS.maxNameLength, format: 'single-line' } as const;

/** The room's breakout methods, spread into ROOM_HANDLERS. */
export const BREAKOUT_HANDLERS: { [M in keyof BreakoutMethods]: RoomHandler<M> } = {
  createBreakouts: {
    schema: fields(['names'], { names: { type: 'array', minItems: 1, maxItems: BREAKOUT_LIMITS.maxRooms, items: name } }),
    run: (session, data, rooms) => rooms.breakouts.create(session, data.names),
  },
  assignBreakouts: {
    schema: fields(['assignments'], {
      assignments: {
        type: 'array',
        minItems: 1,
        maxItems: 500,
        items: fields(['identity', 'room'], { identity: id, room: { anyOf: [id, { type: 'null' }] } }),
      },
    }),
    run: (session, data, rooms) => rooms.breakouts.assign(session, data.assignments),
  },
  assignBreakoutsRandomly: {
    schema: empty,
    run: (session, _data, rooms) => rooms.breakouts.assignRandomly(session),
  },
  openBreakouts: {
    schema: empty,
    run: (session, _data, rooms) => rooms.breakouts.open(session),
  },
  broadcastToBreakouts: {
    schema: fields(['text'], {
      text: { type: 'string', minLength: 1, maxLength: BREAKOUT_LIMITS.maxMessageLength, format: 'single-line' },
    }),
    run(session, data, rooms) {
      rooms.breakouts.broadcast(session, data.text);
      return {};
    },
  },
  setBreakoutTimer: {
    schema: fields(['minutes'], { minutes: { type: 'integer', minimum: 1, maximum: BREAKOUT_LIMITS.maxTimerMinutes } }),
    run: (session, data, rooms) => rooms.breakouts.setTimer(session, data.minutes),
  },
  closeBreakouts: {
    schema: empty,
    run: (session, _data, rooms) => rooms.breakouts.close(session),
  },
  moveToBreakout: {
    schema: fields(['room'], { room: { anyOf: [id, { type: 'null' }] } }),
    run: (session, data, rooms) => rooms.breakouts.move(session, data.room),
  },
  listBreakouts: {
    schema: empty,
    run: (session, _data, rooms) => rooms.breakouts.list(session),
  },
};
