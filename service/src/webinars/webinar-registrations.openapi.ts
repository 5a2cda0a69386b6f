import {
  ref,
  json,
  idempotencyKey,
  errors,
  notFound,
  conflict,
  bodyErrors,
  op,
  page,
  pageParams,
  badRequest,
  type OpenApiFragment,
} from '../shared/openapi.parts';
import { createRegistrationSchema, registrationSchema } from './webinar-registrations.schemas';

/** The webinar registrations part of the OpenAPI document. */
export const webinarsOpenApi: OpenApiFragment = {
  paths: {
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
      get: op('webinars:write', {
        operationId: 'listRegistrations',
        tags: ['Webinars'],
        summary: 'List a webinar’s registrations, or find one by email',
        description:
          'Newest first. With `email`, the page holds the registration for that address (compared case-insensitively) or nothing; ' +
          'connectors use it to look a registrant up before registering. Registrations hold personal data, so reading them needs the same scope as writing them.',
        parameters: [
          {
            name: 'email',
            in: 'query',
            description: 'Only the registration for this email address.',
            schema: { type: 'string', maxLength: 254 },
          },
          ...pageParams,
        ],
        responses: {
          '200': json('A page of registrations.', page('Registration')),
          '400': badRequest,
          '404': notFound,
          '409': conflict,
          ...errors('webinars:write'),
        },
      }),
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
  },
  schemas: {
    CreateRegistration: createRegistrationSchema,
    Registration: registrationSchema,
  },
};
