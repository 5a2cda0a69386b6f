import { parsePageRequest } from '../http/pagination';
import type { RouteDef } from '../http/routes';
import type { ParticipantsService } from './participants.service';

/** Endpoints of /meetings/{id}/participants. */
export function participantsRoutes(participants: ParticipantsService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/participants',
      scope: 'meetings:read',
      handler(req, res) {
        res.json(participants.list(req.principal!, String(req.params.id), parsePageRequest(req)));
      },
    },
  ];
}
