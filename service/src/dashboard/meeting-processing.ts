import type { Principal } from '../identity/identity.service';
import type { JobQueue } from '../jobs/job.worker';
import type { JobRow, JobsRepo } from '../jobs/jobs.repo';
import type { MeetingsService } from '../meetings/meetings.service';
import { isoAt } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { SummariesService } from '../summaries/summaries.service';
import type { TranscriptsService } from '../transcripts/transcripts.service';

/** The two results made after a meeting, each by its own background job. */
export type ProcessingOutput = 'transcript' | 'summary';

/** Where a meeting's transcript or summary stands: no job yet, queued, being made, failed (with why), or stored. */
export interface ProcessingState {
  status: 'none' | 'pending' | 'running' | 'failed' | 'ready';
  /** Why the newest attempt failed: the final reason when `failed`, the last attempt's when a `pending` job will try again. */
  failure_reason: string | null;
  attempt_count: number;
  /** When a pending job runs next (after a failed attempt, its back-off). */
  next_attempt_at: string | null;
  /** When the result was stored, or the job last changed. */
  updated_at: string | null;
  /** Only a failed job can be retried. */
  can_retry: boolean;
}

/** A meeting's transcript and summary states, for the dashboard. */
export interface MeetingProcessing {
  transcript: ProcessingState;
  summary: ProcessingState;
}

/** Reads a meeting's transcription and summary jobs and results, and queues a failed job again (the dashboard's Retry). */
export class MeetingProcessingService {
  constructor(
    private readonly meetings: MeetingsService,
    private readonly jobsRepo: JobsRepo,
    private readonly jobs: JobQueue,
    private readonly transcripts: TranscriptsService,
    private readonly summaries: SummariesService,
  ) {}

  /** The states of a meeting the principal can reach. */
  get(principal: Principal, meetingIdOrCode: string): MeetingProcessing {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    return {
      transcript: stateOf(this.jobsRepo.latestTranscribeOf(meeting.id), this.transcripts.stored(meeting.id)?.updated_at),
      summary: stateOf(this.jobsRepo.latestSummarizeOf(meeting.id), this.summaries.stored(meeting.id)?.created_at),
    };
  }

  /** Queues the failed job behind `output` again with a fresh set of attempts; conflict unless its newest job failed. */
  retry(principal: Principal, meetingIdOrCode: string, output: ProcessingOutput): MeetingProcessing {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    const job = output === 'transcript' ? this.jobsRepo.latestTranscribeOf(meeting.id) : this.jobsRepo.latestSummarizeOf(meeting.id);
    if (!job) throw AppError.conflict(`Meeting ${meeting.code} has no ${output} job to retry`);
    if (job.status !== 'failed')
      throw AppError.conflict(`The ${output} of meeting ${meeting.code} is ${job.status}; only a failed one can be retried`);
    this.jobs.retry(job.id);
    return this.get(principal, meeting.id);
  }
}

/** A job's error without the server's directories: `/srv/svc/data/recordings/rec_1.webm` -> `rec_1.webm`. */
export function withoutPaths(error: string | null): string | null {
  return error && error.replace(/(^|[\s'"([])\/(?:[^\s/'"]+\/)+([^\s/'"]+)/g, '$1$2');
}

function stateOf(job: JobRow | undefined, storedAt: string | undefined): ProcessingState {
  const idle = { failure_reason: null, attempt_count: job?.attempt_count ?? 0, next_attempt_at: null, can_retry: false };
  const active = job && (job.status === 'pending' || job.status === 'running');
  if (active) {
    return {
      ...idle,
      status: job.status as 'pending' | 'running',
      failure_reason: withoutPaths(job.last_error),
      next_attempt_at: job.status === 'pending' && job.next_run_at !== null ? isoAt(job.next_run_at) : null,
      updated_at: job.created_at,
    };
  }
  // A failure newer than the stored result (a re-run that failed) is what the reader needs to see; the result stays readable.
  if (job?.status === 'failed' && (!storedAt || (job.completed_at ?? '') > storedAt)) {
    return { ...idle, status: 'failed', failure_reason: withoutPaths(job.last_error), updated_at: job.completed_at, can_retry: true };
  }
  if (storedAt) return { ...idle, status: 'ready', updated_at: storedAt };
  return { ...idle, status: 'none', updated_at: null };
}
