import {
  ref,
  json,
  rateLimitHeaderRefs,
  page,
  pageParams,
  integrationIdParam,
  errors,
  badRequest,
  notFound,
  bodyErrors,
  op,
  type OpenApiFragment,
} from '../shared/openapi.parts';
import { deliverySchema } from '../outbox/deliveries.schemas';
import { createIntegrationSchema, integrationSchema, updateIntegrationSchema } from './integrations.schemas';

/** The integrations part of the OpenAPI document. */
export const integrationsOpenApi: OpenApiFragment = {
  paths: {
    '/integrations': {
      get: op('integrations:write', {
        operationId: 'listIntegrations',
        tags: ['Integrations'],
        summary: 'List Slack and Teams integrations, newest first',
        parameters: pageParams,
        responses: { '200': json('A page of integrations.', page('Integration')), '400': badRequest, ...errors('integrations:write') },
      }),
      post: op('integrations:write', {
        operationId: 'createIntegration',
        tags: ['Integrations'],
        summary: 'Post events to a Slack channel (bot token + channel) or a Teams chat (Workflows webhook URL)',
        requestBody: { required: true, content: { 'application/json': { schema: ref('CreateIntegration') } } },
        responses: { '201': json('The integration.', ref('Integration')), ...bodyErrors, ...errors('integrations:write') },
      }),
    },
    '/integrations/{id}': {
      parameters: [integrationIdParam],
      get: op('integrations:write', {
        operationId: 'getIntegration',
        tags: ['Integrations'],
        summary: 'Get an integration and its status',
        responses: { '200': json('The integration.', ref('Integration')), '404': notFound, ...errors('integrations:write') },
      }),
      patch: op('integrations:write', {
        operationId: 'updateIntegration',
        tags: ['Integrations'],
        summary: 'Change events, channel, token or URL, or disable / re-enable',
        requestBody: { required: true, content: { 'application/json': { schema: ref('UpdateIntegration') } } },
        responses: {
          '200': json('The integration.', ref('Integration')),
          ...bodyErrors,
          '404': notFound,
          ...errors('integrations:write'),
        },
      }),
      delete: op('integrations:write', {
        operationId: 'deleteIntegration',
        tags: ['Integrations'],
        summary: 'Delete the integration with its deliveries',
        responses: { '204': { description: 'Deleted.', headers: rateLimitHeaderRefs }, '404': notFound, ...errors('integrations:write') },
      }),
    },
    '/integrations/{id}/deliveries': {
      parameters: [integrationIdParam],
      get: op('integrations:write', {
        operationId: 'listIntegrationDeliveries',
        tags: ['Integrations'],
        summary: 'Notifications sent (or being retried) to this integration, newest first, with their attempts',
        parameters: pageParams,
        responses: {
          '200': json('A page of deliveries.', page('IntegrationDelivery')),
          '400': badRequest,
          '404': notFound,
          ...errors('integrations:write'),
        },
      }),
    },
  },
  schemas: {
    IntegrationDelivery: deliverySchema('integration_id'),
    Integration: integrationSchema,
    CreateIntegration: createIntegrationSchema,
    UpdateIntegration: updateIntegrationSchema,
  },
};
