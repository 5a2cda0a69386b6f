import { Router } from 'express';
import type { JobQueue } from '../jobs/job.worker';
import type { JobsRepo } from '../jobs/jobs.repo';
import type { MeetingsService } from '../meetings/meetings.service';
import type { RoomLinks } from '../rooms/room-links';
import type { Clock } from '../shared/clock';
import { icsCalendar } from '../shared/ics';
import type { SummariesService } from '../summaries/summaries.service';
import type { TranscriptsService } from '../transcripts/transcripts.service';
import { MeetingProcessingService, type ProcessingOutput } from './meeting-processing';

/** What the dashboard's meeting endpoints use. */
export interface DashboardMeetingsDeps {
  meetings: MeetingsService;
  roomLinks: RoomLinks;
  jobs: JobQueue;
  jobsRepo: JobsRepo;
  transcripts: TranscriptsService;
  summaries: SummariesService;
  clock: Clock;
}

/**
 * The dashboard's own meeting endpoints, under /dashboard/api behind the session (and CSRF for POST): join as host
 * with the signed-in user's name, the calendar invitation, and the transcript and summary jobs with Retry.
 */
export function dashboardMeetingsRouter(services: DashboardMeetingsDeps, baseUrl: string): Router {
  const processing = new MeetingProcessingService(
    services.meetings,
    services.jobsRepo,
    services.jobs,
    services.transcripts,
    services.summaries,
  );
  const router = Router();

  // A host link that opens the room's pre-join with the signed-in user's name filled in.
  router.post('/meetings/:id/join-as-host', (req, res) => {
    const user = req.dashboardSession!.user;
    const link = services.roomLinks.hostLink(req.principal!, String(req.params.id));
    const url = new URL(link.url);
    url.searchParams.set('name', user.name.trim() || user.email.split('@')[0]!);
    res.status(201).json({ url: url.toString(), expires_at: link.expires_at });
  });

  router.get('/meetings/:id/calendar.ics', (req, res) => {
    const row = services.meetings.find(req.principal!, String(req.params.id));
    const meeting = services.meetings.view(row);
    const body = icsCalendar({
      uid: `${meeting.id}@${new URL(baseUrl).hostname}`,
      start: row.scheduled_at_ms,
      end: row.scheduled_at_ms + row.duration_minutes * 60_000,
      summary: meeting.title,
      stamp: services.clock.now(),
      url: meeting.join_url,
      description: `Join: ${meeting.join_url}`,
      timeZone: meeting.time_zone ?? undefined,
    });
    res.type('text/calendar; charset=utf-8');
    res.attachment(`${meeting.code}.ics`);
    res.send(body);
  });

  router.get('/meetings/:id/processing', (req, res) => {
    res.json(processing.get(req.principal!, String(req.params.id)));
  });
  for (const output of ['transcript', 'summary'] as const satisfies readonly ProcessingOutput[]) {
    router.post(`/meetings/:id/${output}/retry`, (req, res) => {
      res.json(processing.retry(req.principal!, String(req.params.id), output));
    });
  }
  return router;
}
