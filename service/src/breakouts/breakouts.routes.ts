import type { RouteDef } from '../http/routes';
import type { BreakoutsService } from './breakouts.service';

/** GET /meetings/{id}/breakout-rooms: every breakout room the meeting had, with who was assigned. */
export function breakoutsRoutes(breakouts: BreakoutsService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/breakout-rooms',
      scope: 'meetings:read',
      handler(req, res) {
        res.json(breakouts.list(req.principal!, String(req.params.id)));
      },
    },
  ];
}
