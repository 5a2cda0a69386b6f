import { bodyErrors, conflict, errors, idParam, json, notFound, op, ref, type OpenApiFragment } from '../shared/openapi.parts';
import { createEmbedTokenSchema, embedOriginsSchema, embedTokenSchema } from './embed.schemas';

/** The embed part of the OpenAPI document. */
export const embedOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/embed-origins': {
      parameters: [idParam],
      get: op('meetings:read', {
        operationId: 'getEmbedOrigins',
        tags: ['Embed'],
        summary: 'The parent origins allowed to frame the embedded room',
        responses: { '200': json('The list.', ref('EmbedOrigins')), '404': notFound, ...errors('meetings:read') },
      }),
      put: op('meetings:write', {
        operationId: 'replaceEmbedOrigins',
        tags: ['Embed'],
        summary: 'Replaces the parent origins allowed to frame the embedded room (CSP frame-ancestors)',
        requestBody: { required: true, content: { 'application/json': { schema: ref('EmbedOrigins') } } },
        responses: {
          '200': json('The stored list, normalized.', ref('EmbedOrigins')),
          ...bodyErrors,
          '404': notFound,
          ...errors('meetings:write'),
        },
      }),
    },
    '/embed/tokens': {
      post: op('meetings:write', {
        operationId: 'createEmbedToken',
        tags: ['Embed'],
        summary: "A short-lived signed token for the embedded room, minted on the customer's server",
        requestBody: { required: true, content: { 'application/json': { schema: ref('CreateEmbedToken') } } },
        responses: {
          '201': json('The token and the iframe address.', ref('EmbedToken')),
          ...bodyErrors,
          '404': notFound,
          '409': conflict,
          ...errors('meetings:write'),
        },
      }),
    },
  },
  schemas: { EmbedOrigins: embedOriginsSchema, CreateEmbedToken: createEmbedTokenSchema, EmbedToken: embedTokenSchema },
};
