import { ref, json, errors, op, type OpenApiFragment } from '../shared/openapi.parts';
import { SCOPES } from '../keys/scopes';

/** The identity part of the OpenAPI document. */
export const identityOpenApi: OpenApiFragment = {
  paths: {
    '/me': {
      get: op(null, {
        operationId: 'getMe',
        tags: ['Identity'],
        summary: 'The key, its owner and the organizations it can act in',
        responses: { '200': json('The caller.', ref('Me')), ...errors(null) },
      }),
    },
  },
  schemas: {
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
  },
};
