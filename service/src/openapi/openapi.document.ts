import { SCOPES } from '../keys/scopes';
import { identityOpenApi } from '../identity/identity.openapi';
import { meetingsOpenApi } from '../meetings/meetings.openapi';
import { participantsOpenApi } from '../participants/participants.openapi';
import { roomsOpenApi } from '../rooms/rooms.openapi';
import { pollsOpenApi } from '../polls/polls.openapi';
import { breakoutsOpenApi } from '../breakouts/breakouts.openapi';
import { embedOpenApi } from '../embed/embed.openapi';
import { recordingsOpenApi } from '../recordings/recordings.openapi';
import { transcriptsOpenApi } from '../transcripts/transcripts.openapi';
import { summariesOpenApi } from '../summaries/summaries.openapi';
import { searchOpenApi } from '../search/search.openapi';
import { webinarsOpenApi } from '../webinars/webinar-registrations.openapi';
import { eventsOpenApi } from '../events/events.openapi';
import { webhooksOpenApi } from '../webhooks/webhooks.openapi';
import { integrationsOpenApi } from '../integrations/integrations.openapi';
import { withRequestExamples } from './openapi.examples';

/** Each feature's paths and schemas, in the order the document lists them. */
const FRAGMENTS = [
  identityOpenApi,
  meetingsOpenApi,
  roomsOpenApi,
  pollsOpenApi,
  breakoutsOpenApi,
  embedOpenApi,
  participantsOpenApi,
  recordingsOpenApi,
  transcriptsOpenApi,
  summariesOpenApi,
  searchOpenApi,
  webinarsOpenApi,
  eventsOpenApi,
  webhooksOpenApi,
  integrationsOpenApi,
];

/** The OpenAPI 3.1 description of the public REST API, served at /api/v1/public/openapi.json; example dates are relative to `nowMs`. */
export function openApiDocument(serverUrl = '/api/v1/public', nowMs = Date.now()): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc public API',
      version: '1.0.0',
      description:
        'Meetings, webinars, recordings, transcripts and summaries. Authenticate with `Authorization: Bearer svc_sk_...`. ' +
        'Every error is `application/problem+json` with a `code`. Rate limit per key: 20 requests in any second and 120 in any minute.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: ['Identity', 'Meetings', 'Embed', 'Recordings', 'Transcripts', 'Webinars', 'Events', 'Webhooks', 'Integrations'].map((name) => ({
      name,
    })),
    paths: withRequestExamples(Object.assign({}, ...FRAGMENTS.map((f) => f.paths)), nowMs),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: `An API key (\`svc_sk_...\`). Scopes: ${SCOPES.join(', ')}.`,
        },
      },
      headers: {
        'X-Request-Id': { description: 'Identifies the request in logs and in problem bodies.', schema: { type: 'string' } },
        'X-RateLimit-Limit': { description: 'Requests allowed per minute for this key.', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the current minute window.', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'Unix time (seconds) when the minute window frees a slot.', schema: { type: 'integer' } },
        'RateLimit-Policy': {
          description: 'IETF draft: the policies, `"burst";q=20;w=1, "minute";q=120;w=60`.',
          schema: { type: 'string' },
        },
        RateLimit: { description: 'IETF draft: remaining quota and seconds to reset per policy.', schema: { type: 'string' } },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
        'Idempotent-Replayed': {
          description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
          schema: { type: 'string' },
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
          properties: {
            type: { type: 'string', format: 'uri' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: {
              type: 'string',
              enum: [
                'unauthorized',
                'insufficient_scope',
                'not_found',
                'invalid_json',
                'validation_failed',
                'conflict',
                'payload_too_large',
                'unsupported_media_type',
                'rate_limited',
                'method_not_allowed',
                'internal_error',
              ],
            },
            request_id: { type: 'string' },
            param: { type: 'string', description: 'The offending body field (dotted path), query parameter or header.' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['param', 'message'],
                properties: { param: { type: 'string' }, message: { type: 'string' } },
              },
            },
            required_scope: { type: 'string', enum: [...SCOPES] },
          },
        },
        ...Object.assign({}, ...FRAGMENTS.map((f) => f.schemas)),
      },
    },
  };
}
