import { HOST_LINK_TTL } from './room-links';
import type { JsonSchema } from '../shared/validation';

/** Body of POST /meetings/{id}/host-links. */
export interface CreateHostLinkInput {
  ttl_seconds?: number;
}

/** JSON Schema of CreateHostLinkInput. */
export const createHostLinkSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ttl_seconds: {
      type: 'integer',
      minimum: HOST_LINK_TTL.minSeconds,
      maximum: HOST_LINK_TTL.maxSeconds,
      default: HOST_LINK_TTL.defaultSeconds,
      description: `How long the link works, ${HOST_LINK_TTL.minSeconds} s to ${HOST_LINK_TTL.maxSeconds} s; default ${HOST_LINK_TTL.defaultSeconds} s.`,
    },
  },
};

/** JSON Schema of a host link. */
export const hostLinkSchema: JsonSchema = {
  type: 'object',
  required: ['url', 'expires_at'],
  properties: {
    url: { type: 'string', format: 'uri', description: 'Whoever opens it joins as a host (may end the meeting, admit and remove people).' },
    expires_at: { type: 'string', format: 'date-time' },
  },
};
