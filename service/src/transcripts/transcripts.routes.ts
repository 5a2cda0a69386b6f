import { AppError } from '../shared/errors';
import type { RouteDef } from '../http/routes';
import type { MeetingsService } from '../meetings/meetings.service';
import type { TranscriptsRepo } from './transcripts.repo';

/** GET /meetings/{id}/transcript: 404 until the meeting has one. */
export function transcriptsRoutes(meetings: MeetingsService, transcripts: TranscriptsRepo): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/transcript',
      scope: 'transcripts:read',
      handler(req, res) {
        const meeting = meetings.find(req.principal!, String(req.params.id));
        const transcript = transcripts.find(meeting.id);
        if (!transcript) throw AppError.notFound(`Transcript of meeting ${meeting.code}`);
        res.json(transcript);
      },
    },
  ];
}
