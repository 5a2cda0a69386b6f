import { parsePageRequest } from '../http/pagination';
import type { RouteDef } from '../http/routes';
import { objectValidator } from '../shared/validation';
import type { RoomLinks } from './room-links';
import type { RoomsService } from './rooms.service';
import { createHostLinkSchema, type CreateHostLinkInput } from './rooms.schemas';

const validateHostLink = objectValidator<CreateHostLinkInput>(createHostLinkSchema);

/** POST /meetings/{id}/host-links (a signed, short-lived link that joins its holder as a host) and the chat log. */
export function roomsRoutes(links: RoomLinks, rooms: RoomsService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/chat-messages',
      scope: 'meetings:read',
      handler(req, res) {
        res.json(rooms.chat.list(req.principal!, String(req.params.id), parsePageRequest(req)));
      },
    },
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
