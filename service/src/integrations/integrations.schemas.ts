import { EVENT_TYPES, type EventType } from '../events/event-types';
import type { JsonSchema } from '../shared/validation';

const events: JsonSchema = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...EVENT_TYPES] },
  description: 'Event types to post; the key must be able to read each.',
};
const botToken: JsonSchema = {
  type: 'string',
  pattern: '^xox[bp]-[A-Za-z0-9-]{10,250}$',
  description: 'Slack bot token (xoxb-...) with chat:write; stored encrypted, never returned.',
};
const channel: JsonSchema = {
  type: 'string',
  pattern: '^#?[A-Za-z0-9._-]{1,80}$',
  description: 'Slack channel id (C0123ABC) or name (#meetings); the bot must be a member.',
};
const webhookUrl: JsonSchema = {
  type: 'string',
  maxLength: 2048,
  description: 'Teams Workflows webhook URL ("When a Teams webhook request is received"); stored encrypted, never returned.',
};

/** Body of POST /integrations. */
export const createIntegrationSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'events'],
  properties: {
    kind: { type: 'string', enum: ['slack', 'teams', 'project'] },
    events,
    bot_token: { ...botToken, description: 'Slack only. ' + String(botToken.description) },
    channel: { ...channel, description: 'Slack only. ' + String(channel.description) },
    webhook_url: { ...webhookUrl, description: 'Teams only. ' + String(webhookUrl.description) },
    organization_id: { type: 'string' },
  },
};

/** Body of POST /integrations after validation. */
export interface CreateIntegrationInput {
  kind: 'slack' | 'teams' | 'project';
  events: EventType[];
  bot_token?: string;
  channel?: string;
  webhook_url?: string;
  organization_id?: string;
}

/** Body of PATCH /integrations/{id}. */
export const updateIntegrationSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    events,
    bot_token: botToken,
    channel,
    webhook_url: webhookUrl,
    enabled: {
      type: 'boolean',
      description: 'false pauses notifications; true resumes them, clears the error state and sends what waited.',
    },
  },
};

/** Body of PATCH /integrations/{id} after validation. */
export interface UpdateIntegrationInput {
  events?: EventType[];
  bot_token?: string;
  channel?: string;
  webhook_url?: string;
  enabled?: boolean;
}

/** The integration resource. */
export const integrationSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'organization_id',
    'kind',
    'events',
    'channel',
    'secret_hint',
    'enabled',
    'status',
    'disabled_reason',
    'last_error',
    'last_delivered_at',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'string', examples: ['int_01jd8x3k2m0000000000000000'] },
    organization_id: { type: 'string' },
    kind: { type: 'string', enum: ['slack', 'teams', 'project'] },
    events: { type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] } },
    channel: { type: ['string', 'null'] },
    secret_hint: { type: 'string', description: 'Enough of the token (xoxb-…last 4) or URL (its host) to recognise it.' },
    enabled: { type: 'boolean' },
    status: {
      type: 'string',
      enum: ['ok', 'failing', 'disabled'],
      description: 'ok; failing (retrying, see last_error); disabled (see disabled_reason).',
    },
    disabled_reason: { type: ['string', 'null'] },
    last_error: { type: ['string', 'null'], description: 'The last failure, e.g. "ratelimited" or "channel_not_found".' },
    last_delivered_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};
