import type { RouteDef } from '../http/routes';
import type { PollsService } from './polls.service';

/** GET /meetings/{id}/polls: a meeting's polls with their results. */
export function pollsRoutes(polls: PollsService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/polls',
      scope: 'meetings:read',
      handler(req, res) {
        res.json(polls.list(req.principal!, String(req.params.id)));
      },
    },
  ];
}
