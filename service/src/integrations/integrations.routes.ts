import { assertCanSubscribe } from '../events/event-types';
import { parsePageRequest } from '../http/pagination';
import { toPage } from '../shared/paging';
import type { RouteDef } from '../http/routes';
import { objectValidator } from '../shared/validation';
import type { IdentityService } from '../identity/identity.service';
import {
  createIntegrationSchema,
  updateIntegrationSchema,
  type CreateIntegrationInput,
  type UpdateIntegrationInput,
} from './integrations.schemas';
import { view, type IntegrationsService } from './integrations.service';

/** Settings > Integrations: Slack and Teams notifications (scope integrations:write). */
export function integrationsRoutes(integrations: IntegrationsService, identity: IdentityService): RouteDef[] {
  const parseCreate = objectValidator<CreateIntegrationInput>(createIntegrationSchema);
  const parseUpdate = objectValidator<UpdateIntegrationInput>(updateIntegrationSchema);
  const scope = 'integrations:write' as const;
  return [
    {
      method: 'post',
      path: '/integrations',
      scope,
      handler(req, res) {
        const input = parseCreate(req.body);
        assertCanSubscribe(req.principal!.key.scopes, input.events);
        const org = identity.targetOrganization(req.principal!, input.organization_id);
        res.status(201).json(integrations.create(org.id, input));
      },
    },
    {
      method: 'get',
      path: '/integrations',
      scope,
      handler(req, res) {
        const page = parsePageRequest(req);
        res.json(toPage(integrations.list(req.principal!.organizationIds, page), page.limit, view));
      },
    },
    {
      method: 'get',
      path: '/integrations/:id',
      scope,
      handler(req, res) {
        res.json(integrations.get(req.principal!.organizationIds, String(req.params.id)));
      },
    },
    {
      method: 'patch',
      path: '/integrations/:id',
      scope,
      handler(req, res) {
        const input = parseUpdate(req.body);
        if (input.events) assertCanSubscribe(req.principal!.key.scopes, input.events);
        res.json(integrations.update(req.principal!.organizationIds, String(req.params.id), input));
      },
    },
    {
      method: 'delete',
      path: '/integrations/:id',
      scope,
      handler(req, res) {
        integrations.remove(req.principal!.organizationIds, String(req.params.id));
        res.status(204).end();
      },
    },
    {
      method: 'get',
      path: '/integrations/:id/deliveries',
      scope,
      handler(req, res) {
        const page = parsePageRequest(req);
        res.json(toPage(integrations.listDeliveries(req.principal!.organizationIds, String(req.params.id), page), page.limit, (d) => d));
      },
    },
  ];
}
