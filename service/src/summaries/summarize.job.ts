import type { JobHandler } from '../jobs/job.worker';
import { PermanentJobError } from '../jobs/job.worker';
import type { MeetingsService } from '../meetings/meetings.service';
import type { ParticipantsService } from '../participants/participants.service';
import type { Logger } from '../shared/logger';
import type { SummarizeJobPayload } from '../transcripts/transcribe.job';
import type { TranscriptSegment } from '../transcripts/transcripts.repo';
import type { TranscriptsService } from '../transcripts/transcripts.service';
import type { Summary } from './summaries.repo';
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
    this.deps.summaries.save(meeting.id, withSpeakers(summary, transcript.segments));
    this.deps.logger.info('summarized', {
      job_id: job.id,
      meeting_id: meeting.id,
      generator: summary.generator,
      took_ms: Date.now() - started,
    });
  }
}

/**
 * The summary with each decision and action item naming who said the segments it cites, and when it was said
 * (the summarizer's time, else the first cited segment's start).
 */
export function withSpeakers<S extends Pick<Summary, 'decisions' | 'action_items'>>(summary: S, segments: TranscriptSegment[]): S {
  const speakersOf = (cite: number[]) => [
    ...new Set(cite.map((i) => segments[i]?.speaker).filter((name): name is string => typeof name === 'string')),
  ];
  const startOf = (item: { cite: number[]; start_seconds?: number | null }) => item.start_seconds ?? segments[item.cite[0]!]?.start ?? null;
  return {
    ...summary,
    decisions: summary.decisions.map((d) => ({ ...d, speakers: speakersOf(d.cite), start_seconds: startOf(d) })),
    action_items: summary.action_items.map((a) => ({ ...a, speakers: speakersOf(a.cite), start_seconds: startOf(a) })),
  };
}
