import { badRequest, errors, json, notFound, op, page, type OpenApiFragment } from '../shared/openapi.parts';

/** The search part of the OpenAPI document. */
export const searchOpenApi: OpenApiFragment = {
  paths: {
    '/search': {
      get: op('transcripts:read', {
        operationId: 'search',
        tags: ['Search'],
        summary: 'Full-text search over transcripts (and chat, with meetings:read too), best match first',
        description:
          'Every word of `q` must occur (accents and case are ignored); punctuation and search operators in `q` are treated as ' +
          'plain text. Matches are marked with [brackets] in `snippet`. Best match first (BM25); a query whose words are in more ' +
          'than 500 entries ranks its 500 newest matches.',
        parameters: [
          { name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 500 } },
          { name: 'meeting', in: 'query', required: false, schema: { type: 'string' }, description: 'Only this meeting (id or code).' },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'cursor', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': json('A page of hits.', page('SearchHit')),
          '400': badRequest,
          '404': notFound,
          ...errors('transcripts:read'),
        },
      }),
    },
  },
  schemas: {
    SearchHit: {
      type: 'object',
      required: [
        'meeting',
        'source',
        'text',
        'snippet',
        'speaker',
        'participant_id',
        'start_seconds',
        'segment_index',
        'chat_message_id',
        'at',
      ],
      properties: {
        meeting: {
          type: 'object',
          required: ['id', 'code', 'title'],
          properties: { id: { type: 'string' }, code: { type: 'string' }, title: { type: 'string' } },
        },
        source: { type: 'string', enum: ['transcript', 'chat'] },
        text: { type: 'string' },
        snippet: { type: 'string' },
        speaker: { type: ['string', 'null'], description: 'Who said or wrote it: their name at the time.' },
        participant_id: {
          type: ['string', 'null'],
          description: 'The participant who said or wrote it, as listed by GET /meetings/{id}/participants; null when unknown.',
        },
        start_seconds: { type: ['number', 'null'], description: 'Transcript hits: seconds from the start of the recording.' },
        segment_index: { type: ['integer', 'null'], description: "Transcript hits: the segment's index in the transcript." },
        chat_message_id: { type: ['string', 'null'] },
        at: { type: 'string', format: 'date-time' },
      },
    },
  },
};
