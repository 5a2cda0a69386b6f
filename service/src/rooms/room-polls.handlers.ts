import { POLL_LIMITS, type PollMethods } from '../polls/polls.protocol';
import type { JsonSchema } from '../shared/validation';
import type { RoomHandler } from './room-handler';
import type { PeerInRoom } from './room';
import type { Peer } from './peer';
import type { RoomsService } from './rooms.service';

const pollId = { type: 'string', minLength: 1, maxLength: 100 } as const;

const createPollSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['question', 'options'],
  properties: {
    question: { type: 'string', minLength: 1, maxLength: POLL_LIMITS.maxQuestionLength, format: 'single-line' },
    options: {
      type: 'array',
      minItems: POLL_LIMITS.minOptions,
      maxItems: POLL_LIMITS.maxOptions,
      items: { type: 'string', minLength: 1, maxLength: POLL_LIMITS.maxOptionLength, format: 'single-line' },
    },
    multiple: { type: 'boolean' },
    anonymous: { type: 'boolean' },
  },
};

/** Who a poll reaches: everyone in the meeting's main room and breakout rooms (polls are meeting-wide). */
function everyoneIn(session: PeerInRoom, rooms: RoomsService): Peer[] {
  return rooms.breakouts.everyone(session.room.meeting.id);
}

/** The room's poll methods, spread into ROOM_HANDLERS. */
export const POLL_HANDLERS: { [M in keyof PollMethods]: RoomHandler<M> } = {
  createPoll: {
    schema: createPollSchema,
    run: (session, data, rooms) => rooms.polls.create(session, data, everyoneIn(session, rooms)),
  },
  votePoll: {
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['pollId', 'optionIds'],
      properties: { pollId, optionIds: { type: 'array', minItems: 1, maxItems: POLL_LIMITS.maxOptions, items: pollId } },
    },
    run: (session, data, rooms) => rooms.polls.vote(session, data.pollId, data.optionIds, everyoneIn(session, rooms)),
  },
  closePoll: {
    schema: { type: 'object', additionalProperties: false, required: ['pollId'], properties: { pollId } },
    run: (session, data, rooms) => rooms.polls.close(session, data.pollId, everyoneIn(session, rooms)),
  },
  listPolls: {
    schema: { type: 'object', additionalProperties: false, properties: {} },
    run: (session, _data, rooms) => rooms.polls.list(session),
  },
};
