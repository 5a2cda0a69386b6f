import { EVENT_TYPES } from '../events/event-types';
import type { EventType } from '../events/event-types';
import type { JsonSchema } from '../shared/validation';

const url: JsonSchema = {
  type: 'string',
  maxLength: 2048,
  description: 'Where deliveries are POSTed; https (http and loopback only when the operator allows insecure webhooks).',
};
const events: JsonSchema = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...EVENT_TYPES] },
  description: 'Event types to deliver; the key must be able to read each.',
};
const description: JsonSchema = { type: 'string', maxLength: 500, format: 'multi-line' };
const headers: JsonSchema = {
  type: 'object',
  maxProperties: 10,
  additionalProperties: { type: 'string', minLength: 1, maxLength: 1024 },
  description:
    'Static headers sent with every delivery, e.g. `{"x-make-apikey": "..."}` for the API-key option of a Make webhook. ' +
    'Names are HTTP tokens, case-insensitive, and may not be hop-by-hop or framing headers (connection, host, content-length, ' +
    'content-type, transfer-encoding, ...) nor the signature headers (`x-svc-*`, `webhook-*`); `authorization` is allowed. ' +
    'Values are visible ASCII and spaces. Stored encrypted and never returned: answers list the names only. On PATCH the object replaces all headers; `{}` removes them.',
};

/** Body of POST /webhook-endpoints. */
export const createEndpointSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'events'],
  properties: { url, events, description, headers, organization_id: { type: 'string' } },
};

/** Body of POST /webhook-endpoints after validation. */
export interface CreateEndpointInput {
  url: string;
  events: EventType[];
  description?: string;
  headers?: Record<string, string>;
  organization_id?: string;
}

/** Body of PATCH /webhook-endpoints/{id}. */
export const updateEndpointSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    url,
    events,
    description,
    headers,
    enabled: { type: 'boolean', description: 'false pauses deliveries; true resumes them and clears disabled_reason.' },
  },
};

/** Body of PATCH /webhook-endpoints/{id} after validation. */
export interface UpdateEndpointInput {
  url?: string;
  events?: EventType[];
  description?: string;
  headers?: Record<string, string>;
  enabled?: boolean;
}

/** The webhook endpoint resource. */
export const endpointSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'organization_id',
    'url',
    'description',
    'events',
    'headers',
    'enabled',
    'disabled_reason',
    'previous_secret_expires_at',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'string', examples: ['whk_01jd8x3k2m0000000000000000'] },
    organization_id: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    description: { type: 'string' },
    events: { type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] } },
    headers: {
      type: 'array',
      items: { type: 'string' },
      description: 'Names (lower-case) of the custom headers sent with every delivery; their values are never returned.',
    },
    enabled: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'], description: 'Why deliveries stopped: the endpoint answered 410, or failed for days.' },
    previous_secret_expires_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'Until then, deliveries are also signed with the previous secret.',
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    secret: { type: 'string', description: 'Only in the answers of create and rotate-secret: shown once.' },
  },
};
