import { parsePageRequest } from '../http/pagination';
import { toPage } from '../shared/paging';
import type { RouteDef } from '../http/routes';
import type { MeetingsService } from '../meetings/meetings.service';
import type { ParticipantRow, ParticipantsRepo } from './participants.repo';

/** The participant resource as the API returns it (the stored row, unchanged). */
export type Participant = ParticipantRow;

/** Endpoints of /meetings/{id}/participants. */
export function participantsRoutes(meetings: MeetingsService, participants: ParticipantsRepo): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/participants',
      scope: 'meetings:read',
      handler(req, res) {
        const page = parsePageRequest(req);
        const meeting = meetings.find(req.principal!, String(req.params.id));
        const rows = participants.list(meeting.id, page.after, page.limit + 1);
        res.json(toPage(rows, page.limit, (row): Participant => row));
      },
    },
  ];
}
