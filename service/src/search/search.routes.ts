import { parseLimit, queryParam } from '../http/pagination';
import type { RouteDef } from '../http/routes';
import { AppError } from '../shared/errors';
import type { SearchService } from './search.service';

/** GET /search: full-text search over the transcripts and chat of the meetings the key can read. */
export function searchRoutes(search: SearchService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/search',
      scope: 'transcripts:read',
      handler(req, res) {
        const q = queryParam(req, 'q');
        if (q === undefined || q.length > 500) throw AppError.invalid([{ param: 'q', message: 'is required, at most 500 characters' }]);
        res.json(
          search.search(req.principal!, {
            q,
            meeting: queryParam(req, 'meeting'),
            limit: parseLimit(req, 20),
            cursor: queryParam(req, 'cursor'),
          }),
        );
      },
    },
  ];
}
