import { isoAt } from '../shared/clock';
import type { JobRow } from './jobs.repo';

/** Where a result made by a background job (a transcript, a summary) stands: no job yet, queued, being made, failed (with why), or stored. */
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

/** A job's error without the server's directories: `/srv/svc/data/recordings/rec_1.webm` -> `rec_1.webm`. */
export function withoutPaths(error: string | null): string | null {
  return error && error.replace(/(^|[\s'"([])\/(?:[^\s/'"]+\/)+([^\s/'"]+)/g, '$1$2');
}

/**
 * The one rule for where a result stands, from its newest job and when the result was stored (undefined: not stored):
 * a pending or running job first; then a failure newer than the stored result (a re-run that failed); then the result.
 */
export function processingStateOf(job: JobRow | undefined, storedAt: string | undefined): ProcessingState {
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
