import { ref, json, idParam, errors, notFound, op, type OpenApiFragment } from '../openapi/openapi.parts';

/** The transcripts part of the OpenAPI document. */
export const transcriptsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/transcript': {
      parameters: [idParam],
      get: op('transcripts:read', {
        operationId: 'getTranscript',
        tags: ['Transcripts'],
        summary: 'The transcript of the meeting (404 until there is one)',
        responses: { '200': json('The transcript.', ref('Transcript')), '404': notFound, ...errors('transcripts:read') },
      }),
    },
  },
  schemas: {
    Transcript: {
      type: 'object',
      required: ['meeting_id', 'language', 'status', 'text', 'segments'],
      properties: {
        meeting_id: { type: 'string' },
        language: { type: 'string', examples: ['en'] },
        status: { type: 'string', enum: ['processing', 'ready', 'failed'] },
        text: { type: 'string' },
        segments: {
          type: 'array',
          items: {
            type: 'object',
            required: ['start', 'end', 'speaker', 'text'],
            properties: {
              start: { type: 'number', description: 'Seconds from the start of the recording.' },
              end: { type: 'number' },
              speaker: { type: ['string', 'null'] },
              text: { type: 'string' },
            },
          },
        },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
      },
    },
  },
};
