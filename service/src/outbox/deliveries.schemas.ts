import { EVENT_TYPES } from '../events/event-types';
import type { JsonSchema } from '../shared/validation';

/** The schema of a delivery with its attempts; `destinationField` names its destination (endpoint_id, integration_id). */
export function deliverySchema(destinationField: string): JsonSchema {
  return {
    type: 'object',
    required: [
      'id',
      'event_id',
      'event_type',
      destinationField,
      'status',
      'attempt_count',
      'next_attempt_at',
      'created_at',
      'completed_at',
      'attempts',
    ],
    properties: {
      id: { type: 'string' },
      event_id: { type: 'string' },
      event_type: { type: 'string', enum: [...EVENT_TYPES] },
      [destinationField]: { type: 'string' },
      status: { type: 'string', enum: ['pending', 'delivering', 'succeeded', 'failed'] },
      attempt_count: { type: 'integer' },
      next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
      created_at: { type: 'string', format: 'date-time' },
      completed_at: { type: ['string', 'null'], format: 'date-time' },
      attempts: {
        type: 'array',
        items: {
          type: 'object',
          required: ['number', 'started_at', 'duration_ms', 'status_code', 'error', 'next_attempt_at'],
          properties: {
            number: { type: 'integer' },
            started_at: { type: 'string', format: 'date-time' },
            duration_ms: { type: 'integer' },
            status_code: { type: ['integer', 'null'] },
            error: { type: ['string', 'null'] },
            response_body: { type: ['string', 'null'], description: 'The first 1 KB of the answer.' },
            next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
          },
        },
      },
    },
  };
}
