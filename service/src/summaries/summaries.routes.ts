import { AppError } from '../shared/errors';
import type { RouteDef } from '../http/routes';
import type { MeetingsService } from '../meetings/meetings.service';
import type { SummariesRepo } from './summaries.repo';

/** GET /meetings/{id}/summary: 404 until the meeting has one. */
export function summariesRoutes(meetings: MeetingsService, summaries: SummariesRepo): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/summary',
      scope: 'transcripts:read',
      handler(req, res) {
        const meeting = meetings.find(req.principal!, String(req.params.id));
        const summary = summaries.find(meeting.id);
        if (!summary) throw AppError.notFound(`Summary of meeting ${meeting.code}`);
        res.json(summary);
      },
    },
  ];
}
