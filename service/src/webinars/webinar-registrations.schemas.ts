import type { JsonSchema } from '../shared/validation';

/** Body of POST /webinars/{slug}/registrations. */
export const createRegistrationSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'name'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S', format: 'single-line' },
  },
};

/** Body of POST /webinars/{slug}/registrations after validation. */
export interface CreateRegistrationInput {
  email: string;
  name: string;
}

/** The registration resource as the API returns it. */
export const registrationSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'webinar', 'email', 'name', 'join_url', 'created_at'],
  properties: {
    id: { type: 'string', examples: ['reg_01jd8x3k2m0000000000000000'] },
    webinar: {
      type: 'object',
      required: ['slug', 'title', 'meeting_id'],
      properties: { slug: { type: 'string' }, title: { type: 'string' }, meeting_id: { type: 'string' } },
    },
    email: { type: 'string', format: 'email' },
    name: { type: 'string' },
    join_url: { type: 'string', format: 'uri' },
    created_at: { type: 'string', format: 'date-time' },
  },
};
