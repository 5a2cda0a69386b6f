import { errors, idParam, json, notFound, op, ref, type OpenApiFragment } from '../shared/openapi.parts';

/** The breakout rooms part of the OpenAPI document. */
export const breakoutsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/breakout-rooms': {
      parameters: [idParam],
      get: op('meetings:read', {
        operationId: 'listBreakoutRooms',
        tags: ['Meetings'],
        summary: 'The breakout rooms hosts opened in the meeting, oldest set first, with who was assigned to each',
        responses: {
          '200': json('The breakout rooms.', {
            type: 'object',
            required: ['data'],
            properties: { data: { type: 'array', items: ref('BreakoutRoom') } },
          }),
          '404': notFound,
          ...errors('meetings:read'),
        },
      }),
    },
  },
  schemas: {
    BreakoutRoom: {
      type: 'object',
      required: ['id', 'name', 'status', 'participants'],
      properties: {
        id: { type: 'string', description: 'brk_...' },
        name: { type: 'string' },
        status: {
          type: 'string',
          enum: ['draft', 'open', 'closing', 'closed'],
          description: 'draft: prepared, not open yet; closing: everyone goes back to the main room when the 30-second countdown ends.',
        },
        participants: {
          type: 'array',
          description: 'Who was assigned to the room.',
          items: {
            type: 'object',
            required: ['participant_id', 'name'],
            properties: { participant_id: { type: 'string' }, name: { type: 'string' } },
          },
        },
      },
    },
  },
};
