import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';

const IDLE_POLL_MS = 1_000;
const MAX_ERROR_BACKOFF_MS = 30_000;

/** A durable queue a ClaimLoop works through. */
export interface ClaimSource<T> {
  /** Takes up to `capacity` items due at `now` (with a lease, in one transaction). */
  claim(capacity: number, now: number): T[];
  /** Works on one claimed item until it is recorded; may reject, which the loop logs. */
  run(item: T): Promise<void>;
  /** Epoch ms when the next item is due, or null when nothing waits. */
  nextDueAt(): number | null;
  /** True when the source claims replacements itself as items finish (see `adopt`), so a finished item need not wake the loop. */
  refillsItself?: boolean;
}

/**
 * The polling loop of durable background work: claims due items up to `concurrency`, runs them, is woken
 * when new work may be due, and otherwise polls at most once a second. A failing claim (a locked or broken
 * database) is logged and retried after a growing back-off; it never takes the process down.
 */
export class ClaimLoop<T> {
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private isRunning = false;
  private wakePending = false;
  private consecutiveErrors = 0;

  constructor(
    private readonly name: string,
    private readonly source: ClaimSource<T>,
    private readonly concurrency: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Items being worked on now. */
  get busy(): number {
    return this.inFlight.size;
  }

  /** True between `start` and `stop`. */
  get running(): boolean {
    return this.isRunning;
  }

  /** Starts claiming; keeps going until `stop`. */
  start(): void {
    this.isRunning = true;
    this.wake();
  }

  /** Stops claiming and waits for the items in flight to finish (the process's stop bounds the wait). */
  async stop(): Promise<void> {
    this.isRunning = false;
    clearTimeout(this.timer);
    await Promise.all(this.inFlight);
  }

  /** Tells a running loop that new work may be due now. */
  wake(): void {
    if (!this.isRunning || this.wakePending) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      this.dispatch();
    });
  }

  /** Claims everything due now (up to capacity), runs it, and resolves once all of it finished; returns how many. */
  async runOnce(): Promise<number> {
    const started = this.claimAndRun();
    await Promise.all(started);
    return started.length;
  }

  private dispatch(): void {
    if (!this.isRunning) return;
    clearTimeout(this.timer);
    let wait: number;
    try {
      const started = this.claimAndRun();
      const heldBack = this.inFlight.size > 0 && (started.length === 0 || this.inFlight.size >= this.concurrency);
      const nextDue = this.source.nextDueAt();
      const untilDue = nextDue === null ? IDLE_POLL_MS : Math.max(0, nextDue - this.clock.now());
      // Work due now but held back by a full pool or a busy destination starts when a running item
      // finishes (that wakes the loop); scanning for it again at once would only spin.
      wait = heldBack && untilDue === 0 ? IDLE_POLL_MS : Math.min(IDLE_POLL_MS, untilDue);
      this.consecutiveErrors = 0;
    } catch (err) {
      this.consecutiveErrors += 1;
      wait = Math.min(MAX_ERROR_BACKOFF_MS, IDLE_POLL_MS * 2 ** (this.consecutiveErrors - 1));
      this.logger.error(`${this.name}: claiming failed; retrying`, { error: (err as Error).message, retry_in_ms: wait });
    }
    this.timer = setTimeout(() => this.dispatch(), wait);
  }

  /** Runs items the source claimed outside the loop (e.g. in the transaction that recorded finished ones). */
  adopt(items: T[]): void {
    for (const item of items) this.runItem(item);
  }

  private claimAndRun(): Promise<void>[] {
    const capacity = this.concurrency - this.inFlight.size;
    if (capacity <= 0) return [];
    return this.source.claim(capacity, this.clock.now()).map((item) => this.runItem(item));
  }

  private runItem(item: T): Promise<void> {
    const work = this.source
      .run(item)
      .catch((err: unknown) => this.logger.error(`${this.name}: an item failed`, { error: (err as Error).message }))
      .finally(() => {
        this.inFlight.delete(work);
        if (!this.source.refillsItself) this.wake();
      });
    this.inFlight.add(work);
    return work;
  }
}
