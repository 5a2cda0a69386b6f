import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Logger } from '../shared/logger';
import type { Transaction } from '../shared/transaction';
import { ClaimLoop } from './claim-loop';
import { AppError } from '../shared/errors';
import type { JobRow, JobsRepo, JobStatus } from './jobs.repo';

/** Delays before attempts 2..5 of a failing job. */
export const JOB_RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 3_600_000] as const;
const LEASE_CHECK_EVERY_MS = 1_000;

/** Thrown by a handler for a failure no retry can fix (a corrupt input): the job fails at once with this message. */
export class PermanentJobError extends Error {}

/** One kind of background work (transcribe, summarize, ...): what to do with a job's payload. */
export interface JobHandler<Payload = unknown> {
  readonly kind: string;
  /**
   * Does the work; throwing fails this attempt, which is retried with back-off. `signal` aborts when the worker
   * stops: a handler passes it to the programs and requests it waits for, and the job runs again at the next start.
   */
  run(payload: Payload, job: { id: string; attempt: number; signal: AbortSignal }): Promise<void>;
}

/** Queues jobs; call `enqueue` inside a domain transaction so the job commits or rolls back with the change. */
export class JobQueue {
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly repo: JobsRepo,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** Adds a listener told (after the current synchronous work, so after the commit) that a job was queued. */
  onEnqueued(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Stores a pending job of `kind`, due at `runAt` (now by default); returns its id. */
  enqueue(kind: string, payload: unknown, runAt = this.clock.now()): string {
    const id = this.ids.next('job');
    this.repo.insert({
      id,
      kind,
      payload: JSON.stringify(payload),
      status: 'pending',
      attempt_count: 0,
      next_run_at: runAt,
      lease_until: null,
      last_error: null,
      created_at: isoAt(this.clock.now()),
      completed_at: null,
    });
    this.notify();
    return id;
  }

  /** One job by id. */
  find(id: string): JobRow | undefined {
    return this.repo.findById(id);
  }

  /** Jobs for operators, newest first, optionally only those in `status`. */
  list(opts: { status?: JobStatus; limit?: number } = {}): JobRow[] {
    return this.repo.list(opts.status ?? null, opts.limit ?? 100);
  }

  /** Makes a failed job due now with a fresh set of attempts; not_found or conflict (when it has not failed) otherwise. */
  retry(id: string): JobRow {
    const job = this.repo.findById(id);
    if (!job) throw AppError.notFound(`Job ${id}`);
    if (job.status !== 'failed') throw AppError.conflict(`Job ${id} is ${job.status}; only a failed job can be retried`);
    this.repo.retry(id, this.clock.now());
    this.notify();
    return this.repo.findById(id)!;
  }

  private notify(): void {
    if (this.listeners.length > 0) queueMicrotask(() => this.listeners.forEach((listener) => listener()));
  }
}

/** What a JobWorker needs. */
export interface JobWorkerDeps {
  jobs: JobsRepo;
  handlers: JobHandler[];
  transaction: Transaction;
  clock: Clock;
  logger: Logger;
  /** Jobs run at once (media work is CPU-heavy: 1 by default). */
  concurrency?: number;
  /** How long a job may run before another worker may take it over. */
  leaseMs?: number;
}

/** Runs durable jobs with a handler per kind: claimed with a lease, retried with back-off, 5 attempts in all. */
export class JobWorker {
  private readonly loop: ClaimLoop<JobRow>;
  private readonly handlers: Map<string, JobHandler>;
  private leasesCheckedAt = -Infinity;
  private stopping = new AbortController();

  constructor(private readonly deps: JobWorkerDeps) {
    this.handlers = new Map(deps.handlers.map((h) => [h.kind, h]));
    this.loop = new ClaimLoop(
      'job worker',
      { claim: (capacity, now) => this.claim(capacity, now), run: (job) => this.run(job), nextDueAt: () => deps.jobs.nextDueAt() },
      deps.concurrency ?? 1,
      deps.clock,
      deps.logger,
    );
  }

  /** Makes jobs a crash interrupted due again, then runs jobs until `stop`. */
  start(): void {
    this.deps.jobs.releaseAll(this.deps.clock.now());
    this.stopping = new AbortController();
    this.loop.start();
  }

  /** Stops claiming, interrupts running jobs (they stay claimed until the next start makes them due again) and waits for them. */
  stop(): Promise<void> {
    this.stopping.abort();
    return this.loop.stop();
  }

  /** Tells a running worker that a job may be due now. */
  wake(): void {
    this.loop.wake();
  }

  /** Runs every job due now (up to the concurrency) and resolves when they finished; returns how many. */
  runOnce(): Promise<number> {
    return this.loop.runOnce();
  }

  private claim(capacity: number, now: number): JobRow[] {
    return this.deps.transaction(() => {
      if (now - this.leasesCheckedAt >= LEASE_CHECK_EVERY_MS) {
        this.deps.jobs.expireLeases(now);
        this.leasesCheckedAt = now;
      }
      return this.deps.jobs.claimDue(now, capacity, now + (this.deps.leaseMs ?? 30 * 60_000));
    });
  }

  private async run(job: JobRow): Promise<void> {
    const attempt = job.attempt_count + 1;
    const handler = this.handlers.get(job.kind);
    let error: string | null = null;
    let permanent = false;
    const signal = this.stopping.signal;
    try {
      if (!handler) throw new Error(`no handler for jobs of kind "${job.kind}"`);
      await handler.run(JSON.parse(job.payload), { id: job.id, attempt, signal });
    } catch (err) {
      if (signal.aborted) {
        this.deps.logger.info('job interrupted by the stop; it runs again at the next start', { job_id: job.id, kind: job.kind });
        return;
      }
      error = (err as Error).message || String(err);
      permanent = err instanceof PermanentJobError;
    }
    const now = this.deps.clock.now();
    const retry = error !== null && handler !== undefined && !permanent && attempt <= JOB_RETRY_DELAYS_MS.length;
    this.deps.transaction(() =>
      this.deps.jobs.finish(job.id, {
        status: error === null ? 'succeeded' : retry ? 'pending' : 'failed',
        next_run_at: retry ? now + JOB_RETRY_DELAYS_MS[attempt - 1]! : null,
        last_error: error,
        completed_at: error === null || !retry ? isoAt(now) : null,
      }),
    );
    if (error !== null) this.deps.logger.warn('job attempt failed', { job_id: job.id, kind: job.kind, attempt, error, will_retry: retry });
  }
}
