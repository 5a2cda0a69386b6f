import type { WebhookSettings } from '../config';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Logger } from '../shared/logger';
import type { Transaction } from '../shared/transaction';
import type { ClaimedDelivery, DeliveriesRepo, DeliveryStatus, DestinationKind } from './deliveries.repo';
import { failedBeforeSending, type DeliveryTarget, type SendResult } from './destination';

/** Delays before attempts 2..5: about 5 s, 5 min, 30 min and 2 h after the previous one. */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000] as const;
/** Attempts in total, the first included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A destination that has failed every attempt for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const LEASE_MARGIN_MS = 30_000;
const IDLE_POLL_MS = 1_000;

/** What the worker needs; `random` gives the jitter (0..1). */
export interface DeliveryWorkerDeps {
  deliveries: DeliveriesRepo;
  targets: Record<DestinationKind, DeliveryTarget>;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  settings: WebhookSettings;
  logger: Logger;
  random?: () => number;
}

/**
 * Works through the outbox: claims due deliveries, makes one attempt each at its destination
 * (webhook, Slack or Teams), records the attempt and schedules the next one. Attempts run
 * concurrently up to a bounded pool, with a smaller cap per destination so one slow receiver never
 * holds up the others.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perDestination = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private wakePending = false;
  private leasesCheckedAt = -Infinity;
  private readonly random: () => number;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.random = deps.random ?? Math.random;
  }

  /** Makes every delivery interrupted by a stop or crash due again, then keeps delivering until `stop`. */
  start(): void {
    const released = this.deps.deliveries.releaseAll(this.deps.clock.now());
    if (released > 0) this.deps.logger.info('deliveries resumed after a restart', { count: released });
    this.running = true;
    this.wake();
  }

  /** Stops claiming and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await Promise.all(this.inFlight);
  }

  /** Tells a running worker that new deliveries may be due now. */
  wake(): void {
    if (!this.running || this.wakePending) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      this.dispatch();
    });
  }

  /** Claims every delivery due now (up to the pool's capacity), attempts them, and resolves once all are recorded; returns how many. */
  async runOnce(): Promise<number> {
    const started = this.claimAndAttempt();
    await Promise.all(started);
    return started.length;
  }

  private dispatch(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    const started = this.claimAndAttempt();
    const heldBack = this.inFlight.size > 0 && (started.length === 0 || this.inFlight.size >= this.deps.settings.concurrency);
    const nextDue = this.deps.deliveries.nextDueAt();
    const untilDue = nextDue === null ? IDLE_POLL_MS : Math.max(0, nextDue - this.deps.clock.now());
    // Deliveries due now but held back by a full pool or a busy destination go out when an attempt
    // finishes (it wakes the worker); re-scanning for them at once would only spin.
    const wait = heldBack && untilDue === 0 ? IDLE_POLL_MS : Math.min(IDLE_POLL_MS, untilDue);
    this.timer = setTimeout(() => this.dispatch(), wait);
  }

  private claimAndAttempt(): Promise<void>[] {
    const capacity = this.deps.settings.concurrency - this.inFlight.size;
    if (capacity <= 0) return [];
    const now = this.deps.clock.now();
    const leaseUntil = now + this.deps.settings.timeoutMs + LEASE_MARGIN_MS;
    const claimed = this.deps.transaction(() => {
      if (now - this.leasesCheckedAt >= IDLE_POLL_MS) {
        this.deps.deliveries.expireLeases(now);
        this.leasesCheckedAt = now;
      }
      const picked: string[] = [];
      for (const delivery of this.deps.deliveries.due(now, capacity * 4)) {
        if (picked.length === capacity) break;
        const busy = this.perDestination.get(delivery.destination_id) ?? 0;
        if (busy >= this.deps.settings.perEndpointConcurrency) continue;
        if (!this.deps.deliveries.claim(delivery.id, leaseUntil)) continue;
        this.perDestination.set(delivery.destination_id, busy + 1);
        picked.push(delivery.id);
      }
      return this.deps.deliveries.withEvents(picked);
    });
    return claimed.map((delivery) => {
      const attempt = this.attempt(delivery).finally(() => {
        this.inFlight.delete(attempt);
        const busy = (this.perDestination.get(delivery.destination_id) ?? 1) - 1;
        if (busy === 0) this.perDestination.delete(delivery.destination_id);
        else this.perDestination.set(delivery.destination_id, busy);
        this.wake();
      });
      this.inFlight.add(attempt);
      return attempt;
    });
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = this.deps.clock.now();
    let result: SendResult;
    try {
      result = await this.deps.targets[delivery.destination_kind].attempt(delivery, startedAt);
    } catch (err) {
      result = failedBeforeSending((err as Error).message);
    }
    this.record(delivery, startedAt, result);
  }

  /** Records the attempt, then the delivery's next step and the destination's health, in one transaction. */
  private record(delivery: ClaimedDelivery, startedAt: number, result: SendResult): void {
    const now = this.deps.clock.now();
    const number = delivery.attempt_count + 1;
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 && result.error === null;
    let status: DeliveryStatus = ok ? 'succeeded' : 'failed';
    let nextAttemptAt: number | null = null;
    if (!ok && result.permanentFailure === null && number < MAX_ATTEMPTS) {
      status = 'pending';
      nextAttemptAt = now + this.retryDelay(number, result);
    }
    this.deps.transaction(() => {
      this.deps.deliveries.recordAttempt(
        {
          id: this.deps.ids.next('att'),
          delivery_id: delivery.id,
          number,
          started_at: isoAt(startedAt),
          duration_ms: result.durationMs,
          status_code: result.statusCode,
          error: result.error,
          response_body: result.responseBody,
          next_attempt_at: nextAttemptAt === null ? null : isoAt(nextAttemptAt),
        },
        { status, next_attempt_at: nextAttemptAt, completed_at: status === 'pending' ? null : isoAt(now) },
      );
      this.updateHealth(delivery, ok, result, now);
    });
    if (!ok) {
      this.deps.logger.warn('delivery attempt failed', {
        delivery_id: delivery.id,
        destination_id: delivery.destination_id,
        attempt: number,
        status_code: result.statusCode,
        error: result.error,
      });
    }
  }

  /** The delay before the next attempt: the schedule with ±10 % jitter, never sooner than a Retry-After asks. */
  private retryDelay(attemptNumber: number, result: SendResult): number {
    const base = RETRY_DELAYS_MS[attemptNumber - 1]!;
    const jittered = Math.round(base * (0.9 + 0.2 * this.random()));
    const asked = result.retryAfterMs === null ? 0 : Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS);
    return Math.max(jittered, asked);
  }

  private updateHealth(delivery: ClaimedDelivery, ok: boolean, result: SendResult, now: number): void {
    const target = this.deps.targets[delivery.destination_kind];
    const health = target.health(delivery.destination_id);
    if (!health) return;
    if (ok) {
      target.saveHealth(
        delivery.destination_id,
        { ...health, failing_since: null, last_error: null },
        { previous: health, delivered: true, now },
      );
      return;
    }
    const failingSince = health.failing_since ?? now;
    const reason = result.permanentFailure ?? (now - failingSince >= DISABLE_AFTER_FAILING_MS ? 'every attempt failed for 5 days' : null);
    const disable = reason !== null && health.enabled;
    target.saveHealth(
      delivery.destination_id,
      {
        enabled: health.enabled && !disable,
        disabled_reason: disable ? reason : health.disabled_reason,
        failing_since: failingSince,
        last_error: result.error ?? `answered ${result.statusCode}`,
      },
      { previous: health, delivered: false, now },
    );
    if (disable) {
      this.deps.deliveries.park(delivery.destination_id);
      this.deps.logger.warn('delivery destination disabled', { destination_id: delivery.destination_id, reason });
    }
  }
}
