import type { JobHandler } from '../jobs/job.worker';
import { PermanentJobError } from '../jobs/job.worker';
import type { MeetingsService } from '../meetings/meetings.service';
import type { ParticipantsService } from '../participants/participants.service';
import type { Logger } from '../shared/logger';
import type { SummarizeJobPayload } from '../transcripts/transcribe.job';
import type { TranscriptsService } from '../transcripts/transcripts.service';
import type { SummariesService } from './summaries.service';
import type { Summarizer } from './summarizer';

/** What the summarize job needs. */
export interface SummarizeJobDeps {
  meetings: MeetingsService;
  participants: ParticipantsService;
  transcripts: TranscriptsService;
  summaries: SummariesService;
  summarizer: Summarizer;
  logger: Logger;
}

/** The `summarize` job: summarizes a meeting's stored transcript with the participants' names and stores it (summary.ready). */
export class SummarizeJob implements JobHandler<SummarizeJobPayload> {
  readonly kind = 'summarize';

  constructor(private readonly deps: SummarizeJobDeps) {}

  /** Summarizes the meeting named in the payload. */
  async run(payload: SummarizeJobPayload, job: { id: string }): Promise<void> {
    const transcript = this.deps.transcripts.stored(payload.meeting_id);
    if (!transcript) throw new PermanentJobError(`meeting ${payload.meeting_id} has no transcript to summarize`);
    const meeting = this.deps.meetings.findAnywhere(payload.meeting_id);
    const started = Date.now();
    const summary = await this.deps.summarizer.summarize({
      segments: transcript.segments,
      participants: this.deps.participants.namesIn(meeting.id),
      meetingDate: meeting.started_at ?? meeting.scheduled_at,
    });
    this.deps.summaries.save(meeting.id, summary);
    this.deps.logger.info('summarized', {
      job_id: job.id,
      meeting_id: meeting.id,
      generator: summary.generator,
      took_ms: Date.now() - started,
    });
  }
}
