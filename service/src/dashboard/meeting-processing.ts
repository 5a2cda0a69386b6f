import type { Principal } from '../identity/identity.service';
import type { JobQueue } from '../jobs/job.worker';
import type { JobsRepo } from '../jobs/jobs.repo';
import { processingStateOf, type ProcessingState } from '../jobs/processing-state';
import type { MeetingsService } from '../meetings/meetings.service';
import { AppError } from '../shared/errors';
import type { SummariesService } from '../summaries/summaries.service';
import type { TranscriptsService } from '../transcripts/transcripts.service';

/** The two results made after a meeting, each by its own background job. */
export type ProcessingOutput = 'transcript' | 'summary';

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
      transcript: processingStateOf(this.jobsRepo.latestTranscribeOf(meeting.id), this.transcripts.stored(meeting.id)?.updated_at),
      summary: processingStateOf(this.jobsRepo.latestSummarizeOf(meeting.id), this.summaries.stored(meeting.id)?.created_at),
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
