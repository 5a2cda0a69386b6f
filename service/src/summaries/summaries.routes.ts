import type { RouteDef } from '../http/routes';
import type { SummariesService } from './summaries.service';

/** GET /meetings/{id}/summary: 404 until the meeting has one. */
export function summariesRoutes(summaries: SummariesService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/summary',
      scope: 'transcripts:read',
      handler(req, res) {
        res.json(summaries.find(req.principal!, String(req.params.id)));
      },
    },
  ];
}
