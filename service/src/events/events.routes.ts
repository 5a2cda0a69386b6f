import { AppError } from '../shared/errors';
import { parseLimit, queryParam } from '../http/pagination';
import type { RouteDef } from '../http/routes';
import { EVENT_SCOPES, EVENT_TYPES } from './event-types';
import type { EventsService } from './events.service';

/** GET /events (every type the key can read) and one polling feed per event type, GET /triggers/{type}. */
export function eventsRoutes(events: EventsService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/events',
      scope: 'meetings:read',
      handler(req, res) {
        res.json(events.feed(req.principal!, { types: [...EVENT_TYPES], since: queryParam(req, 'since'), limit: parseLimit(req) }));
      },
    },
    ...EVENT_TYPES.map((type): RouteDef => ({
      method: 'get',
      path: `/triggers/${type}`,
      scope: EVENT_SCOPES[type],
      handler(req, res) {
        const slug = queryParam(req, 'slug');
        if (slug !== undefined && type !== 'registration.created') {
          throw AppError.invalid([{ param: 'slug', message: 'only filters registration.created' }]);
        }
        res.json(events.feed(req.principal!, { types: [type], since: queryParam(req, 'since'), limit: parseLimit(req), slug }));
      },
    })),
  ];
}
