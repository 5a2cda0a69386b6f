import { ref, json, idParam, errors, notFound, op, type OpenApiFragment } from '../shared/openapi.parts';

/** The summaries part of the OpenAPI document. */
export const summariesOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/summary': {
      parameters: [idParam],
      get: op('transcripts:read', {
        operationId: 'getSummary',
        tags: ['Transcripts'],
        summary: 'The summary of the meeting: TL;DR, decisions, action items (404 until there is one)',
        responses: { '200': json('The summary.', ref('Summary')), '404': notFound, ...errors('transcripts:read') },
      }),
    },
  },
  schemas: {
    Summary: {
      type: 'object',
      required: ['meeting_id', 'tldr', 'decisions', 'action_items', 'generator', 'created_at'],
      properties: {
        meeting_id: { type: 'string' },
        tldr: { type: 'string' },
        decisions: {
          type: 'array',
          items: {
            type: 'object',
            required: ['text', 'cite', 'speakers', 'start_seconds'],
            properties: { text: { type: 'string' }, cite: ref('Cite'), speakers: ref('CitedSpeakers'), start_seconds: ref('CitedTime') },
          },
        },
        action_items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['text', 'owner', 'due', 'cite', 'speakers', 'start_seconds'],
            properties: {
              text: { type: 'string' },
              owner: {
                type: ['string', 'null'],
                description: 'The participant the task was given to, as they were named; null when nobody was named.',
              },
              due: {
                type: ['string', 'null'],
                format: 'date',
                description: 'The day it is due (YYYY-MM-DD, "by Friday" resolved against the meeting date); null when none was said.',
              },
              cite: ref('Cite'),
              speakers: ref('CitedSpeakers'),
              start_seconds: ref('CitedTime'),
            },
          },
        },
        generator: { type: 'string', enum: ['extractive', 'llm'] },
        created_at: { type: 'string', format: 'date-time' },
      },
    },
    CitedSpeakers: {
      type: 'array',
      items: { type: 'string' },
      description: 'Who said the cited segments (their names, each once, in cite order); empty when the transcript does not name them.',
    },
    CitedTime: {
      type: ['number', 'null'],
      description:
        'When it was said: seconds from the start of the recording (inside a long segment, estimated from the word position); null for summaries made before items carried a time.',
    },
    Cite: {
      type: 'array',
      items: { type: 'integer', minimum: 0 },
      description: 'Indexes of the transcript segments the item comes from.',
    },
  },
};
