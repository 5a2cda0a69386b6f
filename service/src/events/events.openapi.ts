import { ref, json, feedDescription, feedParams, slugParam, errors, badRequest, op, type OpenApiFragment } from '../shared/openapi.parts';
import { EVENT_SCOPES, EVENT_TYPES } from './event-types';

/** The events part of the OpenAPI document. */
export const eventsOpenApi: OpenApiFragment = {
  paths: {
    '/events': {
      get: op('meetings:read', {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: 'Events of every type the key can read',
        description: feedDescription,
        parameters: feedParams,
        responses: { '200': json('A page of events.', ref('FeedPage')), '400': badRequest, ...errors('meetings:read') },
      }),
    },
    ...Object.fromEntries(
      EVENT_TYPES.map((type) => [
        `/triggers/${type}`,
        {
          get: op(EVENT_SCOPES[type], {
            operationId: `poll_${type.replace('.', '_')}`,
            tags: ['Events'],
            summary: `Polling feed of ${type}`,
            description: feedDescription,
            parameters: type === 'registration.created' ? [...feedParams, slugParam] : feedParams,
            responses: { '200': json('A page of events.', ref('FeedPage')), '400': badRequest, ...errors(EVENT_SCOPES[type]) },
          }),
        },
      ]),
    ),
  },
  schemas: {
    Event: {
      type: 'object',
      required: ['id', 'type', 'created_at', 'data'],
      properties: {
        id: {
          type: 'string',
          description: 'Sorts in creation order; the feed cursor and the webhook idempotency key.',
          examples: ['evt_01jd8x3k2m0000000000000000'],
        },
        type: { type: 'string', enum: [...EVENT_TYPES] },
        created_at: { type: 'string', format: 'date-time' },
        data: {
          type: 'object',
          description:
            '`meeting` {id, code, title, status, started_at, ended_at} on every event; `recording` on recording.ready, `transcript` {breakout_room_id, language, segment_count, speakers: [{name, participant_id}] (who spoke, in order of first speech)} on transcript.ready (`breakout_room_id` is null for the meeting transcript and names the room for a breakout room transcript), `summary` {tldr} on summary.ready, `registration` and `webinar` on registration.created.',
          properties: {
            meeting: {
              type: 'object',
              required: ['id', 'code', 'title', 'status', 'started_at', 'ended_at'],
              properties: {
                id: { type: 'string' },
                code: { type: 'string' },
                title: { type: 'string' },
                status: { type: 'string' },
                started_at: { type: ['string', 'null'] },
                ended_at: { type: ['string', 'null'] },
              },
            },
            recording: ref('Recording'),
            transcript: {
              type: 'object',
              properties: {
                breakout_room_id: {
                  type: ['string', 'null'],
                  description:
                    "Null for the meeting's transcript (GET /meetings/{id}/transcript); a breakout room's id for that room's own transcript (GET /meetings/{id}/breakout-rooms/{room_id}/transcript).",
                },
                language: { type: 'string' },
                segment_count: { type: 'integer' },
                speakers: {
                  type: 'array',
                  description: 'Who spoke, each once, in order of first speech (segments without a known speaker are not counted).',
                  items: {
                    type: 'object',
                    required: ['name', 'participant_id'],
                    properties: { name: { type: 'string' }, participant_id: { type: ['string', 'null'] } },
                  },
                },
              },
            },
            summary: { type: 'object', properties: { tldr: { type: 'string' } } },
            registration: {
              type: 'object',
              required: ['id', 'email', 'name', 'join_url', 'created_at'],
              properties: {
                id: { type: 'string' },
                email: { type: 'string', format: 'email' },
                name: { type: 'string' },
                join_url: { type: 'string', format: 'uri' },
                created_at: { type: 'string', format: 'date-time' },
              },
            },
            webinar: {
              type: 'object',
              required: ['slug', 'title', 'meeting_id'],
              properties: { slug: { type: 'string' }, title: { type: 'string' }, meeting_id: { type: 'string' } },
            },
          },
        },
      },
    },
    FeedPage: {
      type: 'object',
      required: ['data', 'next_cursor'],
      properties: {
        data: { type: 'array', items: ref('Event') },
        next_cursor: { type: ['string', 'null'], description: 'The newest event id seen so far: pass it as `since` on the next poll.' },
      },
    },
  },
};
