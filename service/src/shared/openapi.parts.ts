import type { JsonSchema } from './validation';

/** An OpenAPI operation object. */
export type Operation = Record<string, unknown>;

/** A reference to a component schema. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A problem+json response. */
export const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
/** A JSON response with the rate-limit headers every answer carries. */
export const json = (description: string, schema: JsonSchema, headers?: Record<string, unknown>) => ({
  description,
  headers: { ...rateLimitHeaderRefs, ...headers },
  content: { 'application/json': { schema } },
});
/** References to the headers every answer carries. */
export const rateLimitHeaderRefs = Object.fromEntries(
  ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'].map((h) => [
    h,
    { $ref: `#/components/headers/${h}` },
  ]),
);
/** A page of a list of `item`. */
export const page = (item: string) => ({
  type: 'object',
  required: ['data', 'has_more', 'next_cursor'],
  properties: {
    data: { type: 'array', items: ref(item) },
    has_more: { type: 'boolean' },
    next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' },
  },
});
/** The path parameter of a meeting: its id or code. */
export const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Meeting id (`mtg_...`) or join code (`abc-defg-hij`).',
  schema: { type: 'string' },
};
/** The `limit` and `cursor` query parameters of a list. */
export const pageParams = [
  { name: 'limit', in: 'query', description: 'Page size, 1 to 100.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
  { name: 'cursor', in: 'query', description: 'The `next_cursor` of the previous page.', schema: { type: 'string' } },
];
/** The Idempotency-Key header of a create. */
export const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes the request safe to retry: the same key and body within 24 h return the first answer (with `Idempotent-Replayed: true`) instead of creating again; the same key with another body is 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** What the feeds return. */
export const feedDescription =
  'Without `since`: the newest `limit` events, newest first. With `since=evt_...`: the events strictly after it, oldest first. ' +
  '`next_cursor` is the newest id seen (the `since` value when nothing is new); follow it and every event is seen exactly once, in order. ' +
  'Events the key’s scopes could not read through the REST API are left out.';
/** The `since` and `limit` query parameters of a feed. */
export const feedParams = [
  { name: 'since', in: 'query', description: 'An event id: return the events after it.', schema: { type: 'string' } },
  { name: 'limit', in: 'query', description: 'Page size, 1 to 100.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
/** The `slug` filter of registration.created feeds. */
export const slugParam = { name: 'slug', in: 'query', description: 'Only registrations for this webinar.', schema: { type: 'string' } };
/** The path parameter of an integration. */
export const integrationIdParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Integration id (`int_...`).',
  schema: { type: 'string' },
};
/** The path parameter of a webhook endpoint. */
export const endpointIdParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Webhook endpoint id (`whk_...`).',
  schema: { type: 'string' },
};

/** Errors every authenticated operation can answer, plus the ones it adds. */
/** The error answers every operation may give (401, 403 when a scope is needed, 429), plus `extra`. */
export function errors(scope: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
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
/** 400: invalid input. */
export const badRequest = problem('Invalid input (`validation_failed`, `invalid_json`); `param` names the offending field.');
/** 404: no such resource the key can reach. */
export const notFound = problem('No such resource the key can reach (`not_found`).');
/** 409: not allowed in the current state. */
export const conflict = problem(
  'The change is not allowed in the current state, or the Idempotency-Key was used with another body (`conflict`).',
);
/** The error answers of an operation with a JSON body. */
export const bodyErrors = {
  '400': badRequest,
  '413': problem('Body over 1 MB (`payload_too_large`).'),
  '415': problem('Body not sent as application/json (`unsupported_media_type`).'),
};

/** An operation needing `scope` (null: any valid key). */
export function op(scope: string | null, fields: Operation): Operation {
  return { security: [{ bearerAuth: scope ? [scope] : [] }], ...fields };
}

/** A feature's part of the document: its paths and the component schemas they use. */
export interface OpenApiFragment {
  paths: Record<string, unknown>;
  schemas: Record<string, unknown>;
}
