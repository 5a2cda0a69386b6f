import type { RouteDef } from '../http/routes';
import { objectValidator } from '../shared/validation';
import type { RoomLinks } from './room-links';
import { createHostLinkSchema, type CreateHostLinkInput } from './rooms.schemas';

const validateHostLink = objectValidator<CreateHostLinkInput>(createHostLinkSchema);

/** POST /meetings/{id}/host-links: a signed, short-lived link that joins its holder as a host. */
export function roomsRoutes(links: RoomLinks): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/meetings/:id/host-links',
      scope: 'meetings:write',
      handler(req, res) {
        const input = validateHostLink(req.body);
        res.status(201).json(links.hostLink(req.principal!, String(req.params.id), input.ttl_seconds));
      },
    },
  ];
}
