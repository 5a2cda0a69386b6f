import type { WebhookSettings } from '../config';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Logger } from '../shared/logger';
import type { Transaction } from '../shared/transaction';
import { ClaimLoop } from '../jobs/claim-loop';
import type { ClaimedDelivery, DeliveriesRepo, DeliveryStatus, DestinationKind } from './deliveries.repo';
import { shareSlots } from './fair-share';
import { failedBeforeSending, type DeliveryTarget, type DestinationHealth, type SendResult } from './destination';

/** Delays before attempts 2..5: about 5 s, 5 min, 30 min and 2 h after the previous one. */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000] as const;
/** Attempts in total, the first included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A destination that has failed every attempt for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const LEASE_MARGIN_MS = 30_000;
const LEASE_CHECK_EVERY_MS = 1_000;

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

/** A finished attempt waiting to be recorded. */
interface Outcome {
  delivery: ClaimedDelivery;
  startedAt: number;
  result: SendResult;
  recorded: () => void;
}

/**
 * Works through the outbox: claims due deliveries, makes one attempt each at its destination
 * (webhook, Slack or Teams), records the attempt and schedules the next one. Attempts run
 * concurrently up to a bounded pool that organizations and their destinations share in turns, each
 * under a cap, so one slow or backlogged receiver never holds up the others. Attempts that finish
 * together are recorded in one transaction.
 */
export class DeliveryWorker {
  private readonly loop: ClaimLoop<ClaimedDelivery>;
  private readonly busyDestinations = new Map<string, number>();
  private readonly busyOrganizations = new Map<string, number>();
  private unrecorded: Outcome[] = [];
  private leasesCheckedAt = -Infinity;
  private readonly random: () => number;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.random = deps.random ?? Math.random;
    this.loop = new ClaimLoop(
      'delivery worker',
      {
        claim: (capacity, now) => this.track(this.deps.transaction(() => this.claim(capacity, now))),
        run: (d) => this.attempt(d),
        nextDueAt: () => deps.deliveries.nextDueAt(),
        refillsItself: true,
      },
      deps.settings.concurrency,
      deps.clock,
      deps.logger,
    );
  }

  /** Makes every delivery interrupted by a stop or crash due again, then keeps delivering until `stop`. */
  start(): void {
    const released = this.deps.deliveries.releaseAll(this.deps.clock.now());
    if (released > 0) this.deps.logger.info('deliveries resumed after a restart', { count: released });
    this.loop.start();
  }

  /** Stops claiming and waits for the attempts in flight to be recorded; any not recorded are attempted again after a restart. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Tells a running worker that new deliveries may be due now. */
  wake(): void {
    this.loop.wake();
  }

  /** Claims every delivery due now (up to the pool's capacity), attempts them, and resolves once all are recorded; returns how many. */
  runOnce(): Promise<number> {
    return this.loop.runOnce();
  }

  /** Claims up to `capacity` due deliveries, shared fairly; runs inside the caller's transaction (`track` them once it committed). */
  private claim(capacity: number, now: number): ClaimedDelivery[] {
    const { settings } = this.deps;
    const leaseUntil = now + settings.timeoutMs + LEASE_MARGIN_MS;
    if (now - this.leasesCheckedAt >= LEASE_CHECK_EVERY_MS) {
      this.deps.deliveries.expireLeases(now);
      this.leasesCheckedAt = now;
    }
    const slots = shareSlots(
      this.deps.deliveries.dueDestinations(now, settings.perEndpointConcurrency),
      capacity,
      { perDestination: settings.perEndpointConcurrency, perOrganization: settings.perOrganizationConcurrency },
      { destinations: this.busyDestinations, organizations: this.busyOrganizations },
    );
    const claimed = [...slots].flatMap(([destinationId, n]) => this.deps.deliveries.claimDue(destinationId, now, n, leaseUntil));
    for (const target of new Set(Object.values(this.deps.targets))) target.prepare?.(claimed);
    return claimed;
  }

  /** Counts committed claims against their destination's and organization's caps. */
  private track(claimed: ClaimedDelivery[]): ClaimedDelivery[] {
    for (const d of claimed) {
      adjust(this.busyDestinations, d.destination_id, +1);
      adjust(this.busyOrganizations, d.organization_id, +1);
    }
    return claimed;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = this.deps.clock.now();
    let result: SendResult;
    try {
      result = await this.deps.targets[delivery.destination_kind].attempt(delivery, startedAt);
    } catch (err) {
      result = failedBeforeSending((err as Error).message);
    }
    await new Promise<void>((recorded) => this.queueRecord({ delivery, startedAt, result, recorded }));
  }

  private queueRecord(outcome: Outcome): void {
    this.unrecorded.push(outcome);
    if (this.unrecorded.length === 1) setImmediate(() => this.recordAll());
  }

  /**
   * Records every finished attempt in one transaction and, while running, claims their replacements in the
   * same transaction (one commit instead of two per delivery). If it fails, the recorded attempts' leases run
   * out and they are attempted again.
   */
  private recordAll(): void {
    const batch = this.unrecorded;
    this.unrecorded = [];
    for (const { delivery } of batch) {
      adjust(this.busyDestinations, delivery.destination_id, -1);
      adjust(this.busyOrganizations, delivery.organization_id, -1);
    }
    let replacements: ClaimedDelivery[] = [];
    try {
      replacements = this.deps.transaction(() => {
        const healthOf = new Map<string, DestinationHealth | undefined>();
        for (const outcome of batch) this.record(outcome.delivery, outcome.startedAt, outcome.result, healthOf);
        const free = this.deps.settings.concurrency - (this.loop.busy - batch.length);
        return this.loop.running && free > 0 ? this.claim(free, this.deps.clock.now()) : [];
      });
    } catch (err) {
      this.deps.logger.error('recording delivery attempts failed; they will be attempted again', {
        error: (err as Error).message,
        deliveries: batch.length,
      });
    }
    this.loop.adopt(this.track(replacements));
    // Deliveries due but not claimable now (a busy destination) wait for the loop's next poll or wake.
    if (replacements.length === 0) this.loop.wake();
    for (const outcome of batch) {
      outcome.recorded();
      const { delivery, result } = outcome;
      if (!isSuccess(result)) {
        this.deps.logger.warn('delivery attempt failed', {
          delivery_id: delivery.id,
          destination_id: delivery.destination_id,
          attempt: delivery.attempt_count + 1,
          status_code: result.statusCode,
          error: result.error,
        });
      }
    }
  }

  /**
   * Records the attempt, then the delivery's next step and the destination's health (inside the batch's transaction);
   * `healthOf` keeps each destination's health as this batch last saved it, so it is read once per batch.
   */
  private record(
    delivery: ClaimedDelivery,
    startedAt: number,
    result: SendResult,
    healthOf: Map<string, DestinationHealth | undefined>,
  ): void {
    const now = this.deps.clock.now();
    const number = delivery.attempt_count + 1;
    const ok = isSuccess(result);
    let status: DeliveryStatus = ok ? 'succeeded' : 'failed';
    let nextAttemptAt: number | null = null;
    if (!ok && result.permanentFailure === null && !result.undeliverable && number < MAX_ATTEMPTS) {
      status = 'pending';
      nextAttemptAt = now + this.retryDelay(number, result);
    }
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
    this.updateHealth(delivery, ok, result, now, healthOf);
  }

  /** The delay before the next attempt: the schedule with ±10 % jitter, never sooner than a Retry-After asks. */
  private retryDelay(attemptNumber: number, result: SendResult): number {
    const base = RETRY_DELAYS_MS[attemptNumber - 1]!;
    const jittered = Math.round(base * (0.9 + 0.2 * this.random()));
    const asked = result.retryAfterMs === null ? 0 : Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS);
    return Math.max(jittered, asked);
  }

  private updateHealth(
    delivery: ClaimedDelivery,
    ok: boolean,
    result: SendResult,
    now: number,
    healthOf: Map<string, DestinationHealth | undefined>,
  ): void {
    const target = this.deps.targets[delivery.destination_kind];
    const id = delivery.destination_id;
    const health = healthOf.has(id) ? healthOf.get(id) : target.health(id);
    healthOf.set(id, health);
    if (!health) return;
    const save = (next: DestinationHealth) => {
      target.saveHealth(id, next, { previous: health, delivered: ok, now });
      healthOf.set(id, next);
    };
    if (ok) {
      save({ ...health, failing_since: null, last_error: null });
      return;
    }
    const failingSince = health.failing_since ?? now;
    const reason = result.permanentFailure ?? (now - failingSince >= DISABLE_AFTER_FAILING_MS ? 'every attempt failed for 5 days' : null);
    const disable = reason !== null && health.enabled;
    save({
      enabled: health.enabled && !disable,
      disabled_reason: disable ? reason : health.disabled_reason,
      failing_since: failingSince,
      last_error: result.error ?? `answered ${result.statusCode}`,
    });
    if (disable) {
      this.deps.deliveries.park(id);
      this.deps.logger.warn('delivery destination disabled', { destination_id: id, reason });
    }
  }
}

function isSuccess(result: SendResult): boolean {
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 && result.error === null;
}

function adjust(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
