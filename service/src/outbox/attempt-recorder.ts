import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Logger } from '../shared/logger';
import type { ClaimedDelivery, DeliveriesRepo, DeliveryStatus, DestinationKind } from './deliveries.repo';
import type { DeliveryTarget, DestinationHealth, SendResult } from './destination';

/** Delays before attempts 2..5: about 5 s, 5 min, 30 min and 2 h after the previous one. */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000] as const;
/** Attempts in total, the first included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A destination that has failed every attempt for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** What recording an attempt needs; `random` gives the retry jitter (0..1). */
export interface AttemptRecorderDeps {
  deliveries: DeliveriesRepo;
  targets: Record<DestinationKind, DeliveryTarget>;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  random: () => number;
}

/**
 * The last step of a delivery attempt (prepare -> send -> record -> reschedule): the attempt row, the delivery's next
 * step (a retry on the backoff schedule, or done) and its destination's health, inside the caller's transaction.
 */
export class AttemptRecorder {
  constructor(private readonly deps: AttemptRecorderDeps) {}

  /**
   * Records the attempt, then the delivery's next step and the destination's health (inside the batch's transaction);
   * `healthOf` keeps each destination's health as this batch last saved it, so it is read once per batch.
   */
  record(delivery: ClaimedDelivery, startedAt: number, result: SendResult, healthOf: Map<string, DestinationHealth | undefined>): void {
    const now = this.deps.clock.now();
    const number = delivery.attempt_count + 1;
    const ok = isSuccess(result);
    let status: DeliveryStatus = ok ? 'succeeded' : 'failed';
    let nextAttemptAt: number | null = null;
    if (!ok && result.permanentFailure === null && !result.undeliverable && number < MAX_ATTEMPTS) {
      status = 'pending';
      nextAttemptAt = now + this.retryDelay(number, result);
    }
    const recorded = this.deps.deliveries.recordAttempt(
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
    if (recorded) this.updateHealth(delivery, ok, result, now, healthOf);
    // Its delivery was deleted with the destination: noting that (no health) gives up the destination's reserve.
    else healthOf.set(delivery.destination_id, this.deps.targets[delivery.destination_kind].health(delivery.destination_id));
  }

  /** The delay before the next attempt: the schedule with ±10 % jitter, never sooner than a Retry-After asks. */
  private retryDelay(attemptNumber: number, result: SendResult): number {
    const base = RETRY_DELAYS_MS[attemptNumber - 1]!;
    const jittered = Math.round(base * (0.9 + 0.2 * this.deps.random()));
    const asked = result.retryAfterMs === null ? 0 : Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS);
    return Math.max(jittered, asked);
  }

  /** Saves the destination's health after an attempt; disables it (and parks its deliveries) after a permanent failure or five days of failures. */
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

/** Whether an attempt delivered: a 2xx answer and no error. */
export function isSuccess(result: SendResult): boolean {
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 && result.error === null;
}
