import type { Principal } from '../identity/identity.service';
import type { JobQueue } from '../jobs/job.worker';
import type { JobRow } from '../jobs/jobs.repo';
import type { MeetingsService } from '../meetings/meetings.service';
import type { RecordingsService } from '../recordings/recordings.service';
import { AppError } from '../shared/errors';
import { isoAt } from '../shared/clock';
import type { TranscribeJobPayload } from './transcribe.job';

/** A background job as the API shows it. */
export interface BackgroundJob {
  id: string;
  kind: string;
  status: JobRow['status'];
  attempt_count: number;
  last_error: string | null;
  next_run_at: string | null;
  created_at: string;
  completed_at: string | null;
}

/** Transcription on request: queues the `transcribe` job of a meeting's newest ready recording. */
export class TranscriptionService {
  constructor(
    private readonly meetings: MeetingsService,
    private readonly recordings: RecordingsService,
    private readonly jobs: JobQueue,
  ) {}

  /** Queues a transcription of the newest ready recording of a meeting the principal can reach; conflict when it has none. */
  request(principal: Principal, meetingIdOrCode: string): BackgroundJob {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    const recordingId = this.recordings.latestReadyId(meeting.id);
    if (!recordingId) throw AppError.conflict(`Meeting ${meeting.code} has no ready recording to transcribe`);
    const id = this.jobs.enqueue('transcribe', { recording_id: recordingId } satisfies TranscribeJobPayload);
    return jobView(this.jobs.find(id)!);
  }
}

/** The API form of a stored job. */
export function jobView(row: JobRow): BackgroundJob {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    attempt_count: row.attempt_count,
    last_error: row.last_error,
    next_run_at: row.next_run_at === null || row.status !== 'pending' ? null : isoAt(row.next_run_at),
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}
