import { errors, idParam, json, notFound, op, ref, type OpenApiFragment } from '../shared/openapi.parts';
import type { JsonSchema } from '../shared/validation';
import { POLL_LIMITS } from './polls.protocol';

/** A poll with its results, as the REST API and MCP's get_meeting return it. */
export const pollSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'question', 'multiple', 'anonymous', 'status', 'options', 'voters', 'created_at', 'closed_at'],
  properties: {
    id: { type: 'string', description: 'pol_...' },
    question: { type: 'string', maxLength: POLL_LIMITS.maxQuestionLength },
    multiple: { type: 'boolean', description: 'True when a participant may choose several options.' },
    anonymous: { type: 'boolean', description: 'True when who voted for what is not kept visible (no `voters` on the options).' },
    status: { type: 'string', enum: ['open', 'closed'] },
    options: {
      type: 'array',
      minItems: POLL_LIMITS.minOptions,
      maxItems: POLL_LIMITS.maxOptions,
      items: {
        type: 'object',
        required: ['id', 'text', 'votes'],
        properties: {
          id: { type: 'string', description: 'opt_...' },
          text: { type: 'string' },
          votes: { type: 'integer', minimum: 0 },
          voters: {
            type: 'array',
            description: 'Who chose this option; only for polls that are not anonymous.',
            items: {
              type: 'object',
              required: ['participant_id', 'name'],
              properties: { participant_id: { type: 'string' }, name: { type: 'string' } },
            },
          },
        },
      },
    },
    voters: { type: 'integer', minimum: 0, description: 'How many people voted.' },
    created_at: { type: 'string', format: 'date-time' },
    closed_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

/** The polls part of the OpenAPI document. */
export const pollsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/polls': {
      parameters: [idParam],
      get: op('meetings:read', {
        operationId: 'listPolls',
        tags: ['Meetings'],
        summary: "The polls hosts ran in the meeting's room, oldest first, with their results",
        responses: {
          '200': json('The polls.', {
            type: 'object',
            required: ['data'],
            properties: { data: { type: 'array', items: ref('Poll') } },
          }),
          '404': notFound,
          ...errors('meetings:read'),
        },
      }),
    },
  },
  schemas: { Poll: pollSchema },
};
