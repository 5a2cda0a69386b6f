import type { JsonSchema } from '../shared/validation';
import { MAX_EMBED_ORIGINS } from './embed-origins';
import { EMBED_FEATURES, EMBED_LOCALE_PATTERN, EMBED_TOKEN_LIMITS, type EmbedFeatureSet } from '../rooms/embed-tokens';

/** Body of PUT /meetings/{id}/embed-origins, and the answer of GET and PUT. */
export interface EmbedOriginsInput {
  origins: string[];
}

/** JSON Schema of EmbedOriginsInput. */
export const embedOriginsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['origins'],
  properties: {
    origins: {
      type: 'array',
      maxItems: MAX_EMBED_ORIGINS,
      items: { type: 'string', minLength: 1, maxLength: 300 },
      description:
        'Parent origins allowed to frame the room: `https://host[:port]` or `https://*.host[:port]` (subdomains only, not the host ' +
        'itself); `http://` only for localhost, *.localhost and 127.0.0.1. Empty: nothing can embed the room.',
    },
  },
};

/** Body of POST /embed/tokens. */
export interface CreateEmbedTokenInput {
  meeting: string;
  name: string;
  ttl_seconds?: number;
  features?: Partial<EmbedFeatureSet>;
  locale?: string;
}

/** JSON Schema of CreateEmbedTokenInput. */
export const createEmbedTokenSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['meeting', 'name'],
  properties: {
    meeting: { type: 'string', minLength: 1, maxLength: 100, description: 'The meeting code (or id).' },
    name: {
      type: 'string',
      minLength: 1,
      maxLength: EMBED_TOKEN_LIMITS.maxNameLength,
      format: 'single-line',
      pattern: '\\S',
      description: 'The guest display name, fixed into the token: the embedding page cannot change it.',
    },
    ttl_seconds: {
      type: 'integer',
      minimum: EMBED_TOKEN_LIMITS.minTtlSeconds,
      maximum: EMBED_TOKEN_LIMITS.maxTtlSeconds,
      default: EMBED_TOKEN_LIMITS.defaultTtlSeconds,
      description: 'How long the token works: the embed page and every (re)connection check it.',
    },
    features: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(EMBED_FEATURES.map((feature) => [feature, { type: 'boolean', default: true }])),
      description: 'Parts of the room to switch off (false); all are on by default.',
    },
    locale: {
      type: 'string',
      pattern: EMBED_LOCALE_PATTERN,
      default: 'en',
      description: 'The language of the room in `embed_url` (en, de, fr; others fall back to English).',
    },
  },
};

/** JSON Schema of the answer of POST /embed/tokens. */
export const embedTokenSchema: JsonSchema = {
  type: 'object',
  required: ['token', 'expires_at', 'embed_url', 'embeddable'],
  properties: {
    token: { type: 'string', description: 'svc_et_... (signed; give it to the SDK as `joinToken`).' },
    expires_at: { type: 'string', format: 'date-time' },
    embed_url: { type: 'string', format: 'uri', description: '{base_url}/<locale>/embed/<token>: the iframe address.' },
    embeddable: { type: 'boolean', description: 'False while the meeting allows no parent origin: then nothing can frame the room.' },
  },
};
