import { parsePageRequest } from '../http/pagination';
import { toPage } from '../shared/paging';
import type { RouteDef } from '../http/routes';
import { objectValidator } from '../shared/validation';
import { createEndpointSchema, updateEndpointSchema, type CreateEndpointInput, type UpdateEndpointInput } from './webhooks.schemas';
import type { WebhooksService } from './webhooks.service';

/** Management of webhook endpoints and their deliveries (scope webhooks:write). */
export function webhooksRoutes(webhooks: WebhooksService): RouteDef[] {
  const parseCreate = objectValidator<CreateEndpointInput>(createEndpointSchema);
  const parseUpdate = objectValidator<UpdateEndpointInput>(updateEndpointSchema);
  const scope = 'webhooks:write' as const;
  return [
    {
      method: 'post',
      path: '/webhook-endpoints',
      scope,
      handler(req, res) {
        res.status(201).json(webhooks.create(req.principal!, parseCreate(req.body)));
      },
    },
    {
      method: 'get',
      path: '/webhook-endpoints',
      scope,
      handler(req, res) {
        const page = parsePageRequest(req);
        res.json(toPage(webhooks.list(req.principal!, page), page.limit, (row) => webhooks.view(row)));
      },
    },
    {
      method: 'get',
      path: '/webhook-endpoints/:id',
      scope,
      handler(req, res) {
        res.json(webhooks.get(req.principal!, String(req.params.id)));
      },
    },
    {
      method: 'patch',
      path: '/webhook-endpoints/:id',
      scope,
      handler(req, res) {
        res.json(webhooks.update(req.principal!, String(req.params.id), parseUpdate(req.body)));
      },
    },
    {
      method: 'delete',
      path: '/webhook-endpoints/:id',
      scope,
      handler(req, res) {
        webhooks.remove(req.principal!, String(req.params.id));
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: '/webhook-endpoints/:id/rotate-secret',
      scope,
      handler(req, res) {
        res.json(webhooks.rotateSecret(req.principal!, String(req.params.id)));
      },
    },
    {
      method: 'get',
      path: '/webhook-endpoints/:id/deliveries',
      scope,
      handler(req, res) {
        const page = parsePageRequest(req);
        const rows = webhooks.listDeliveries(req.principal!, String(req.params.id), page);
        res.json(toPage(rows, page.limit, (d) => d));
      },
    },
    {
      method: 'post',
      path: '/deliveries/:id/redeliver',
      scope,
      handler(req, res) {
        res.status(202).json(webhooks.redeliver(req.principal!, String(req.params.id)));
      },
    },
  ];
}
