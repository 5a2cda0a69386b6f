import type { Scope } from '../keys/scopes';
import { SCOPES } from '../keys/scopes';
import { createMeetingSchema, meetingSchema, updateMeetingSchema } from '../meetings/meetings.schemas';
import type { JsonSchema } from '../shared/validation';
import { createRegistrationSchema, registrationSchema } from '../webinars/registrations.schemas';
import { EVENT_SCOPES, EVENT_TYPES } from '../events/event-types';
import { createEndpointSchema, endpointSchema, updateEndpointSchema } from '../webhooks/webhooks.schemas';
import { deliverySchema } from '../outbox/deliveries.schemas';
import { createIntegrationSchema, integrationSchema, updateIntegrationSchema } from '../integrations/integrations.schemas';

type Operation = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
const json = (description: string, schema: JsonSchema, headers?: Record<string, unknown>) => ({
  description,
  headers: { ...rateLimitHeaderRefs, ...headers },
  content: { 'application/json': { schema } },
});
const rateLimitHeaderRefs = Object.fromEntries(
  ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'].map((h) => [
    h,
    { $ref: `#/components/headers/${h}` },
  ]),
);
const page = (item: string) => ({
  type: 'object',
  required: ['data', 'has_more', 'next_cursor'],
  properties: {
    data: { type: 'array', items: ref(item) },
    has_more: { type: 'boolean' },
    next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' },
  },
});
const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Meeting id (`mtg_...`) or join code (`abc-defg-hij`).',
  schema: { type: 'string' },
};
const pageParams = [
  { name: 'limit', in: 'query', description: 'Page size, 1 to 100.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
  { name: 'cursor', in: 'query', description: 'The `next_cursor` of the previous page.', schema: { type: 'string' } },
];
const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes the request safe to retry: the same key and body within 24 h return the first answer (with `Idempotent-Replayed: true`) instead of creating again; the same key with another body is 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const feedDescription =
  'Without `since`: the newest `limit` events, newest first. With `since=evt_...`: the events strictly after it, oldest first. ' +
  '`next_cursor` is the newest id seen (the `since` value when nothing is new); follow it and every event is seen exactly once, in order. ' +
  'Events the key’s scopes could not read through the REST API are left out.';
const feedParams = [
  { name: 'since', in: 'query', description: 'An event id: return the events after it.', schema: { type: 'string' } },
  { name: 'limit', in: 'query', description: 'Page size, 1 to 100.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
const slugParam = { name: 'slug', in: 'query', description: 'Only registrations for this webinar.', schema: { type: 'string' } };
const integrationIdParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Integration id (`int_...`).',
  schema: { type: 'string' },
};
const endpointIdParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Webhook endpoint id (`whk_...`).',
  schema: { type: 'string' },
};

/** Errors every authenticated operation can answer, plus the ones it adds. */
function errors(scope: Scope | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '401': problem('Missing, malformed, unknown, expired or revoked API key (`unauthorized`).'),
    ...(scope ? { '403': problem(`The key lacks the \`${scope}\` scope (\`insufficient_scope\`, with \`required_scope\`).`) } : {}),
    '429': {
      ...problem('Over the rate limit (`rate_limited`); wait `Retry-After` seconds.'),
      headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...rateLimitHeaderRefs },
    },
    ...extra,
  };
}
const badRequest = problem('Invalid input (`validation_failed`, `invalid_json`); `param` names the offending field.');
const notFound = problem('No such resource the key can reach (`not_found`).');
const conflict = problem('The change is not allowed in the current state, or the Idempotency-Key was used with another body (`conflict`).');
const bodyErrors = {
  '400': badRequest,
  '413': problem('Body over 1 MB (`payload_too_large`).'),
  '415': problem('Body not sent as application/json (`unsupported_media_type`).'),
};

function op(scope: Scope | null, fields: Operation): Operation {
  return { security: [{ bearerAuth: scope ? [scope] : [] }], ...fields };
}

/** The OpenAPI 3.1 description of the public REST API, served at /api/v1/public/openapi.json. */
export function openApiDocument(serverUrl = '/api/v1/public'): Record<string, unknown> {
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
    tags: ['Identity', 'Meetings', 'Recordings', 'Transcripts', 'Webinars', 'Events', 'Webhooks', 'Integrations'].map((name) => ({ name })),
    paths: {
      '/me': {
        get: op(null, {
          operationId: 'getMe',
          tags: ['Identity'],
          summary: 'The key, its owner and the organizations it can act in',
          responses: { '200': json('The caller.', ref('Me')), ...errors(null) },
        }),
      },
      '/meetings': {
        get: op('meetings:read', {
          operationId: 'listMeetings',
          tags: ['Meetings'],
          summary: 'List meetings, newest first',
          parameters: [
            {
              name: 'status',
              in: 'query',
              description: 'Only meetings in this state.',
              schema: { type: 'string', enum: ['scheduled', 'live', 'ended', 'cancelled'] },
            },
            ...pageParams,
          ],
          responses: { '200': json('A page of meetings.', page('Meeting')), '400': badRequest, ...errors('meetings:read') },
        }),
        post: op('meetings:write', {
          operationId: 'createMeeting',
          tags: ['Meetings'],
          summary: 'Create a meeting or webinar',
          parameters: [idempotencyKey],
          requestBody: { required: true, content: { 'application/json': { schema: ref('CreateMeeting') } } },
          responses: {
            '201': json('The new meeting.', ref('Meeting'), {
              'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' },
            }),
            ...bodyErrors,
            '409': conflict,
            ...errors('meetings:write'),
          },
        }),
      },
      '/meetings/{id}': {
        parameters: [idParam],
        get: op('meetings:read', {
          operationId: 'getMeeting',
          tags: ['Meetings'],
          summary: 'Get a meeting by id or code',
          responses: { '200': json('The meeting.', ref('Meeting')), '404': notFound, ...errors('meetings:read') },
        }),
        patch: op('meetings:write', {
          operationId: 'updateMeeting',
          tags: ['Meetings'],
          summary: 'Change a meeting, or end a live one with {"status": "ended"}',
          requestBody: { required: true, content: { 'application/json': { schema: ref('UpdateMeeting') } } },
          responses: {
            '200': json('The changed meeting.', ref('Meeting')),
            ...bodyErrors,
            '404': notFound,
            '409': conflict,
            ...errors('meetings:write'),
          },
        }),
        delete: op('meetings:write', {
          operationId: 'cancelMeeting',
          tags: ['Meetings'],
          summary: 'Cancel a scheduled meeting (the record stays, with status cancelled)',
          responses: {
            '200': json('The cancelled meeting.', ref('Meeting')),
            '404': notFound,
            '409': conflict,
            ...errors('meetings:write'),
          },
        }),
      },
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
      '/meetings/{id}/recordings': {
        parameters: [idParam],
        get: op('recordings:read', {
          operationId: 'listRecordings',
          tags: ['Recordings'],
          summary: 'Recordings of the meeting, newest first',
          parameters: pageParams,
          responses: {
            '200': json('A page of recordings.', page('Recording')),
            '400': badRequest,
            '404': notFound,
            ...errors('recordings:read'),
          },
        }),
      },
      '/recordings/{recording_id}/download': {
        parameters: [{ name: 'recording_id', in: 'path', required: true, schema: { type: 'string' } }],
        get: op('recordings:read', {
          operationId: 'downloadRecording',
          tags: ['Recordings'],
          summary: 'Download the file of a ready recording',
          responses: {
            '200': {
              description: 'The file.',
              headers: rateLimitHeaderRefs,
              content: {
                'video/webm': { schema: { type: 'string', contentMediaType: 'video/webm' } },
                'audio/webm': { schema: { type: 'string', contentMediaType: 'audio/webm' } },
              },
            },
            '404': notFound,
            ...errors('recordings:read'),
          },
        }),
      },
      '/meetings/{id}/transcript': {
        parameters: [idParam],
        get: op('transcripts:read', {
          operationId: 'getTranscript',
          tags: ['Transcripts'],
          summary: 'The transcript of the meeting (404 until there is one)',
          responses: { '200': json('The transcript.', ref('Transcript')), '404': notFound, ...errors('transcripts:read') },
        }),
      },
      '/meetings/{id}/summary': {
        parameters: [idParam],
        get: op('transcripts:read', {
          operationId: 'getSummary',
          tags: ['Transcripts'],
          summary: 'The summary of the meeting: TL;DR, decisions, action items (404 until there is one)',
          responses: { '200': json('The summary.', ref('Summary')), '404': notFound, ...errors('transcripts:read') },
        }),
      },
      '/webinars/{slug}/registrations': {
        parameters: [
          {
            name: 'slug',
            in: 'path',
            required: true,
            description:
              'The webinar’s slug. Slugs are unique per organization: a key that can act in several organizations using the same slug gets 409; use a key restricted to one organization.',
            schema: { type: 'string' },
          },
        ],
        post: op('webinars:write', {
          operationId: 'createRegistration',
          tags: ['Webinars'],
          summary: 'Register someone for a webinar',
          parameters: [idempotencyKey],
          requestBody: { required: true, content: { 'application/json': { schema: ref('CreateRegistration') } } },
          responses: {
            '201': json('The new registration.', ref('Registration')),
            '200': json('This email was already registered; the existing registration, and no new event.', ref('Registration')),
            ...bodyErrors,
            '404': notFound,
            '409': conflict,
            ...errors('webinars:write'),
          },
        }),
      },
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
      '/webhook-endpoints': {
        get: op('webhooks:write', {
          operationId: 'listWebhookEndpoints',
          tags: ['Webhooks'],
          summary: 'List webhook endpoints, newest first',
          parameters: pageParams,
          responses: { '200': json('A page of endpoints.', page('WebhookEndpoint')), '400': badRequest, ...errors('webhooks:write') },
        }),
        post: op('webhooks:write', {
          operationId: 'createWebhookEndpoint',
          tags: ['Webhooks'],
          summary: 'Register a webhook endpoint; the answer shows its signing secret once',
          requestBody: { required: true, content: { 'application/json': { schema: ref('CreateWebhookEndpoint') } } },
          responses: { '201': json('The endpoint, with `secret`.', ref('WebhookEndpoint')), ...bodyErrors, ...errors('webhooks:write') },
        }),
      },
      '/webhook-endpoints/{id}': {
        parameters: [endpointIdParam],
        get: op('webhooks:write', {
          operationId: 'getWebhookEndpoint',
          tags: ['Webhooks'],
          summary: 'Get a webhook endpoint',
          responses: { '200': json('The endpoint.', ref('WebhookEndpoint')), '404': notFound, ...errors('webhooks:write') },
        }),
        patch: op('webhooks:write', {
          operationId: 'updateWebhookEndpoint',
          tags: ['Webhooks'],
          summary: 'Change the URL, events or description, or disable / re-enable the endpoint',
          requestBody: { required: true, content: { 'application/json': { schema: ref('UpdateWebhookEndpoint') } } },
          responses: { '200': json('The endpoint.', ref('WebhookEndpoint')), ...bodyErrors, '404': notFound, ...errors('webhooks:write') },
        }),
        delete: op('webhooks:write', {
          operationId: 'deleteWebhookEndpoint',
          tags: ['Webhooks'],
          summary: 'Delete the endpoint with its deliveries',
          responses: { '204': { description: 'Deleted.', headers: rateLimitHeaderRefs }, '404': notFound, ...errors('webhooks:write') },
        }),
      },
      '/webhook-endpoints/{id}/rotate-secret': {
        parameters: [endpointIdParam],
        post: op('webhooks:write', {
          operationId: 'rotateWebhookSecret',
          tags: ['Webhooks'],
          summary: 'Issue a new signing secret; for 24 h deliveries carry signatures of both the new and the old secret',
          responses: {
            '200': json('The endpoint, with the new `secret`.', ref('WebhookEndpoint')),
            '404': notFound,
            ...errors('webhooks:write'),
          },
        }),
      },
      '/webhook-endpoints/{id}/deliveries': {
        parameters: [endpointIdParam],
        get: op('webhooks:write', {
          operationId: 'listDeliveries',
          tags: ['Webhooks'],
          summary: 'Deliveries to the endpoint, newest first, each with its attempts',
          parameters: pageParams,
          responses: {
            '200': json('A page of deliveries.', page('Delivery')),
            '400': badRequest,
            '404': notFound,
            ...errors('webhooks:write'),
          },
        }),
      },
      '/deliveries/{id}/redeliver': {
        parameters: [{ name: 'id', in: 'path', required: true, description: 'Delivery id (`dlv_...`).', schema: { type: 'string' } }],
        post: op('webhooks:write', {
          operationId: 'redeliver',
          tags: ['Webhooks'],
          summary: 'Send the delivery’s event to its endpoint again, as a new delivery due now',
          responses: { '202': json('The new delivery.', ref('Delivery')), '404': notFound, '409': conflict, ...errors('webhooks:write') },
        }),
      },
      '/integrations': {
        get: op('integrations:write', {
          operationId: 'listIntegrations',
          tags: ['Integrations'],
          summary: 'List Slack and Teams integrations, newest first',
          parameters: pageParams,
          responses: { '200': json('A page of integrations.', page('Integration')), '400': badRequest, ...errors('integrations:write') },
        }),
        post: op('integrations:write', {
          operationId: 'createIntegration',
          tags: ['Integrations'],
          summary: 'Post events to a Slack channel (bot token + channel) or a Teams chat (Workflows webhook URL)',
          requestBody: { required: true, content: { 'application/json': { schema: ref('CreateIntegration') } } },
          responses: { '201': json('The integration.', ref('Integration')), ...bodyErrors, ...errors('integrations:write') },
        }),
      },
      '/integrations/{id}': {
        parameters: [integrationIdParam],
        get: op('integrations:write', {
          operationId: 'getIntegration',
          tags: ['Integrations'],
          summary: 'Get an integration and its status',
          responses: { '200': json('The integration.', ref('Integration')), '404': notFound, ...errors('integrations:write') },
        }),
        patch: op('integrations:write', {
          operationId: 'updateIntegration',
          tags: ['Integrations'],
          summary: 'Change events, channel, token or URL, or disable / re-enable',
          requestBody: { required: true, content: { 'application/json': { schema: ref('UpdateIntegration') } } },
          responses: {
            '200': json('The integration.', ref('Integration')),
            ...bodyErrors,
            '404': notFound,
            ...errors('integrations:write'),
          },
        }),
        delete: op('integrations:write', {
          operationId: 'deleteIntegration',
          tags: ['Integrations'],
          summary: 'Delete the integration with its deliveries',
          responses: { '204': { description: 'Deleted.', headers: rateLimitHeaderRefs }, '404': notFound, ...errors('integrations:write') },
        }),
      },
      '/integrations/{id}/deliveries': {
        parameters: [integrationIdParam],
        get: op('integrations:write', {
          operationId: 'listIntegrationDeliveries',
          tags: ['Integrations'],
          summary: 'Notifications sent (or being retried) to this integration, newest first, with their attempts',
          parameters: pageParams,
          responses: {
            '200': json('A page of deliveries.', page('IntegrationDelivery')),
            '400': badRequest,
            '404': notFound,
            ...errors('integrations:write'),
          },
        }),
      },
    },
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
        Me: {
          type: 'object',
          required: ['user', 'organizations', 'key'],
          properties: {
            user: {
              type: 'object',
              required: ['id', 'name', 'email'],
              properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' } },
            },
            organizations: {
              type: 'array',
              items: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
            },
            key: {
              type: 'object',
              required: ['id', 'name', 'scopes', 'organization_id', 'expires_at', 'created_at'],
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
                organization_id: { type: ['string', 'null'], description: 'null when the key is not restricted to one organization.' },
                expires_at: { type: ['string', 'null'], format: 'date-time' },
                created_at: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
        Meeting: meetingSchema,
        CreateMeeting: createMeetingSchema,
        UpdateMeeting: updateMeetingSchema,
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
        Recording: {
          type: 'object',
          required: ['id', 'meeting_id', 'kind', 'status', 'duration_seconds', 'download_url', 'created_at'],
          properties: {
            id: { type: 'string' },
            meeting_id: { type: 'string' },
            kind: { type: 'string', enum: ['video', 'audio'] },
            status: { type: 'string', enum: ['processing', 'ready', 'failed'] },
            duration_seconds: { type: ['integer', 'null'] },
            size_bytes: { type: ['integer', 'null'] },
            content_type: { type: ['string', 'null'] },
            download_url: {
              type: ['string', 'null'],
              format: 'uri',
              description: 'Set once the recording is ready; needs the same Bearer key.',
            },
            created_at: { type: 'string', format: 'date-time' },
            ready_at: { type: ['string', 'null'], format: 'date-time' },
          },
        },
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
        Summary: {
          type: 'object',
          required: ['meeting_id', 'tldr', 'decisions', 'action_items', 'generator', 'created_at'],
          properties: {
            meeting_id: { type: 'string' },
            tldr: { type: 'string' },
            decisions: {
              type: 'array',
              items: { type: 'object', required: ['text', 'cite'], properties: { text: { type: 'string' }, cite: ref('Cite') } },
            },
            action_items: {
              type: 'array',
              items: {
                type: 'object',
                required: ['text', 'owner', 'due', 'cite'],
                properties: {
                  text: { type: 'string' },
                  owner: { type: ['string', 'null'] },
                  due: { type: ['string', 'null'] },
                  cite: ref('Cite'),
                },
              },
            },
            generator: { type: 'string', enum: ['extractive', 'llm'] },
            created_at: { type: 'string', format: 'date-time' },
          },
        },
        Cite: {
          type: 'array',
          items: { type: 'integer', minimum: 0 },
          description: 'Indexes of the transcript segments the item comes from.',
        },
        CreateRegistration: createRegistrationSchema,
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
                '`meeting` {id, code, title, status, started_at, ended_at} on every event; `recording` on recording.ready, `transcript` {language, segment_count} on transcript.ready, `summary` {tldr} on summary.ready, `registration` and `webinar` on registration.created.',
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
                transcript: { type: 'object', properties: { language: { type: 'string' }, segment_count: { type: 'integer' } } },
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
        WebhookEndpoint: endpointSchema,
        CreateWebhookEndpoint: createEndpointSchema,
        UpdateWebhookEndpoint: updateEndpointSchema,
        Delivery: deliverySchema('endpoint_id'),
        IntegrationDelivery: deliverySchema('integration_id'),
        Integration: integrationSchema,
        CreateIntegration: createIntegrationSchema,
        UpdateIntegration: updateIntegrationSchema,
        Registration: registrationSchema,
      },
    },
  };
}
