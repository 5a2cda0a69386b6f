import { AppError } from '../shared/errors';
import type { IdempotencyService } from '../idempotency/idempotency.service';
import { sendIdempotent } from '../http/idempotent';
import { parsePageRequest, queryParam } from '../http/pagination';
import { toPage } from '../shared/paging';
import type { RouteDef } from '../http/routes';
import { objectValidator } from '../shared/validation';
import type { MeetingStatus } from './meetings.repo';
import {
  createMeetingSchema,
  reopenMeetingSchema,
  updateMeetingSchema,
  type CreateMeetingInput,
  type UpdateMeetingInput,
} from './meetings.schemas';
import type { MeetingsService } from './meetings.service';

const STATUSES: readonly MeetingStatus[] = ['scheduled', 'live', 'ended', 'cancelled'];

/** Endpoints of /meetings. */
export function meetingsRoutes(meetings: MeetingsService, idempotency: IdempotencyService): RouteDef[] {
  const parseCreate = objectValidator<CreateMeetingInput>(createMeetingSchema);
  const parseUpdate = objectValidator<UpdateMeetingInput>(updateMeetingSchema);
  const parseReopen = objectValidator<Record<string, never>>(reopenMeetingSchema);
  return [
    {
      method: 'get',
      path: '/meetings',
      scope: 'meetings:read',
      handler(req, res) {
        const page = parsePageRequest(req);
        const status = queryParam(req, 'status');
        if (status !== undefined && !STATUSES.includes(status as MeetingStatus)) {
          throw AppError.invalid([{ param: 'status', message: `must be one of ${STATUSES.join(', ')}` }]);
        }
        const rows = meetings.list(req.principal!, page, status as MeetingStatus | undefined);
        res.json(toPage(rows, page.limit, (row) => meetings.view(row)));
      },
    },
    {
      method: 'post',
      path: '/meetings',
      scope: 'meetings:write',
      handler(req, res) {
        const input = parseCreate(req.body);
        sendIdempotent(req, res, idempotency, () => ({ status: 201, body: meetings.create(req.principal!, input) }));
      },
    },
    {
      method: 'get',
      path: '/meetings/:id',
      scope: 'meetings:read',
      handler(req, res) {
        res.json(meetings.get(req.principal!, String(req.params.id)));
      },
    },
    {
      method: 'patch',
      path: '/meetings/:id',
      scope: 'meetings:write',
      handler(req, res) {
        res.json(meetings.update(req.principal!, String(req.params.id), parseUpdate(req.body)));
      },
    },
    {
      method: 'post',
      path: '/meetings/:id/reopen',
      scope: 'meetings:write',
      handler(req, res) {
        parseReopen(req.body ?? {});
        sendIdempotent(req, res, idempotency, () => ({ status: 200, body: meetings.reopen(req.principal!, String(req.params.id)) }));
      },
    },
    {
      method: 'delete',
      path: '/meetings/:id',
      scope: 'meetings:write',
      handler(req, res) {
        res.json(meetings.cancel(req.principal!, String(req.params.id)));
      },
    },
  ];
}
