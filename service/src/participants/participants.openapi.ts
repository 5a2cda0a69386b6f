import { json, page, idParam, pageParams, errors, badRequest, notFound, op, type OpenApiFragment } from '../shared/openapi.parts';

/** The participants part of the OpenAPI document. */
export const participantsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/participants': {
      parameters: [idParam],
      get: op('meetings:read', {
        operationId: 'listParticipants',
        tags: ['Meetings'],
        summary: 'People who joined the meeting, newest first',
        parameters: pageParams,
        responses: {
          '200': json('A page of participants.', page('Participant')),
          '400': badRequest,
          '404': notFound,
          ...errors('meetings:read'),
        },
      }),
    },
  },
  schemas: {
    Participant: {
      type: 'object',
      required: ['id', 'meeting_id', 'name', 'role', 'identity', 'joined_at', 'left_at'],
      properties: {
        id: { type: 'string' },
        meeting_id: { type: 'string' },
        name: { type: 'string' },
        role: { type: 'string', enum: ['host', 'guest'] },
        identity: { type: 'string' },
        joined_at: { type: 'string', format: 'date-time' },
        left_at: { type: ['string', 'null'], format: 'date-time' },
      },
    },
  },
};
