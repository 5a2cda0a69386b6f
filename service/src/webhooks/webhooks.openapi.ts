import {
  ref,
  json,
  rateLimitHeaderRefs,
  page,
  pageParams,
  endpointIdParam,
  errors,
  badRequest,
  notFound,
  conflict,
  bodyErrors,
  op,
  type OpenApiFragment,
} from '../shared/openapi.parts';
import { createEndpointSchema, endpointSchema, updateEndpointSchema } from './webhooks.schemas';
import { deliverySchema } from '../outbox/deliveries.schemas';

/** The webhooks part of the OpenAPI document. */
export const webhooksOpenApi: OpenApiFragment = {
  paths: {
    '/webhook-endpoints': {
      get: op('webhooks:write', {
        operationId: 'listWebhookEndpoints',
        tags: ['Webhooks'],
        summary: 'List webhook endpoints, newest first',
        parameters: pageParams,
        responses: { '200': json('A page of endpoints.', page('WebhookEndpoint')), '400': badRequest, ...errors('webhooks:write') },
      }),
      post: op('webhooks:write', {
        operationId: 'createWebhookEndpoint',
        tags: ['Webhooks'],
        summary: 'Register a webhook endpoint; the answer shows its signing secret once',
        requestBody: { required: true, content: { 'application/json': { schema: ref('CreateWebhookEndpoint') } } },
        responses: { '201': json('The endpoint, with `secret`.', ref('WebhookEndpoint')), ...bodyErrors, ...errors('webhooks:write') },
      }),
    },
    '/webhook-endpoints/{id}': {
      parameters: [endpointIdParam],
      get: op('webhooks:write', {
        operationId: 'getWebhookEndpoint',
        tags: ['Webhooks'],
        summary: 'Get a webhook endpoint',
        responses: { '200': json('The endpoint.', ref('WebhookEndpoint')), '404': notFound, ...errors('webhooks:write') },
      }),
      patch: op('webhooks:write', {
        operationId: 'updateWebhookEndpoint',
        tags: ['Webhooks'],
        summary: 'Change the URL, events or description, or disable / re-enable the endpoint',
        requestBody: { required: true, content: { 'application/json': { schema: ref('UpdateWebhookEndpoint') } } },
        responses: { '200': json('The endpoint.', ref('WebhookEndpoint')), ...bodyErrors, '404': notFound, ...errors('webhooks:write') },
      }),
      delete: op('webhooks:write', {
        operationId: 'deleteWebhookEndpoint',
        tags: ['Webhooks'],
        summary: 'Delete the endpoint with its deliveries',
        responses: { '204': { description: 'Deleted.', headers: rateLimitHeaderRefs }, '404': notFound, ...errors('webhooks:write') },
      }),
    },
    '/webhook-endpoints/{id}/rotate-secret': {
      parameters: [endpointIdParam],
      post: op('webhooks:write', {
        operationId: 'rotateWebhookSecret',
        tags: ['Webhooks'],
        summary: 'Issue a new signing secret; for 24 h deliveries carry signatures of both the new and the old secret',
        responses: {
          '200': json('The endpoint, with the new `secret`.', ref('WebhookEndpoint')),
          '404': notFound,
          ...errors('webhooks:write'),
        },
      }),
    },
    '/webhook-endpoints/{id}/deliveries': {
      parameters: [endpointIdParam],
      get: op('webhooks:write', {
        operationId: 'listDeliveries',
        tags: ['Webhooks'],
        summary: 'Deliveries to the endpoint, newest first, each with its attempts',
        parameters: pageParams,
        responses: {
          '200': json('A page of deliveries.', page('Delivery')),
          '400': badRequest,
          '404': notFound,
          ...errors('webhooks:write'),
        },
      }),
    },
    '/deliveries/{id}/redeliver': {
      parameters: [{ name: 'id', in: 'path', required: true, description: 'Delivery id (`dlv_...`).', schema: { type: 'string' } }],
      post: op('webhooks:write', {
        operationId: 'redeliver',
        tags: ['Webhooks'],
        summary: 'Send the delivery’s event to its endpoint again, as a new delivery due now',
        responses: { '202': json('The new delivery.', ref('Delivery')), '404': notFound, '409': conflict, ...errors('webhooks:write') },
      }),
    },
  },
  schemas: {
    WebhookEndpoint: endpointSchema,
    CreateWebhookEndpoint: createEndpointSchema,
    UpdateWebhookEndpoint: updateEndpointSchema,
    Delivery: deliverySchema('endpoint_id'),
  },
};
