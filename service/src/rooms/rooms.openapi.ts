import { bodyErrors, conflict, errors, idParam, json, notFound, op, ref, type OpenApiFragment } from '../openapi/openapi.parts';
import { createHostLinkSchema, hostLinkSchema } from './rooms.schemas';

/** The rooms part of the OpenAPI document. */
export const roomsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/host-links': {
      parameters: [idParam],
      post: op('meetings:write', {
        operationId: 'createHostLink',
        tags: ['Meetings'],
        summary: 'A signed, short-lived link that joins its holder as a host',
        requestBody: { required: false, content: { 'application/json': { schema: ref('CreateHostLink') } } },
        responses: {
          '201': json('The host link.', ref('HostLink')),
          ...bodyErrors,
          '404': notFound,
          '409': conflict,
          ...errors('meetings:write'),
        },
      }),
    },
  },
  schemas: { CreateHostLink: createHostLinkSchema, HostLink: hostLinkSchema },
};
