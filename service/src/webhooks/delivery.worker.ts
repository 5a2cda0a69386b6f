import { signDelivery } from '@svc/connectors';
import type { WebhookSettings } from '../config';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Logger } from '../shared/logger';
import type { SecretBox } from '../shared/secret-box';
import type { Transaction } from '../shared/transaction';
import type { ClaimedDelivery, DeliveriesRepo, DeliveryStatus } from './deliveries.repo';
import type { WebhookEndpointsRepo } from './webhook-endpoints.repo';
import type { SendResult, Sender } from './webhook-sender';

/** Delays before attempts 2..5: about 5 s, 5 min, 30 min and 2 h after the previous one. */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000] as const;
/** Attempts in total, the first included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** An endpoint that has failed every attempt for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const LEASE_MARGIN_MS = 30_000;
const IDLE_POLL_MS = 1_000;

/** What the worker needs; `random` gives the jitter (0..1). */
export interface DeliveryWorkerDeps {
  deliveries: DeliveriesRepo;
  endpoints: WebhookEndpointsRepo;
  secrets: SecretBox;
  send: Sender;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  settings: WebhookSettings;
  logger: Logger;
  random?: () => number;
}

/**
 * Sends webhook deliveries from the outbox: claims due deliveries, signs each attempt afresh, posts
 * it, records the attempt and schedules the next one. Attempts run concurrently up to a bounded
 * pool, with a smaller cap per endpoint so one slow receiver never holds up the others.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private wakePending = false;
  private readonly random: () => number;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.random = deps.random ?? Math.random;
  }

  /** Makes every delivery interrupted by a stop or crash due again, then keeps delivering until `stop`. */
  start(): void {
    const released = this.deps.deliveries.releaseAll(this.deps.clock.now());
    if (released > 0) this.deps.logger.info('webhook deliveries resumed after a restart', { count: released });
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
    const started = this.claimAndSend();
    await Promise.all(started);
    return started.length;
  }

  private dispatch(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.claimAndSend();
    const nextDue = this.deps.deliveries.nextDueAt();
    const wait = nextDue === null ? IDLE_POLL_MS : Math.min(IDLE_POLL_MS, Math.max(0, nextDue - this.deps.clock.now()));
    if (this.inFlight.size < this.deps.settings.concurrency) this.timer = setTimeout(() => this.dispatch(), wait);
  }

  private claimAndSend(): Promise<void>[] {
    const capacity = this.deps.settings.concurrency - this.inFlight.size;
    if (capacity <= 0) return [];
    const now = this.deps.clock.now();
    const leaseUntil = now + this.deps.settings.timeoutMs + LEASE_MARGIN_MS;
    const claimed = this.deps.transaction(() => {
      const picked: ClaimedDelivery[] = [];
      for (const delivery of this.deps.deliveries.due(now, capacity * 4)) {
        if (picked.length === capacity) break;
        const busy = this.perEndpoint.get(delivery.endpoint_id) ?? 0;
        if (busy >= this.deps.settings.perEndpointConcurrency) continue;
        if (!this.deps.deliveries.claim(delivery.id, leaseUntil)) continue;
        this.perEndpoint.set(delivery.endpoint_id, busy + 1);
        picked.push(delivery);
      }
      return picked;
    });
    return claimed.map((delivery) => {
      const attempt = this.attempt(delivery).finally(() => {
        this.inFlight.delete(attempt);
        const busy = (this.perEndpoint.get(delivery.endpoint_id) ?? 1) - 1;
        if (busy === 0) this.perEndpoint.delete(delivery.endpoint_id);
        else this.perEndpoint.set(delivery.endpoint_id, busy);
        this.wake();
      });
      this.inFlight.add(attempt);
      return attempt;
    });
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = this.deps.clock.now();
    const timestamp = Math.floor(startedAt / 1000);
    const headers = signDelivery({
      secrets: this.secretsOf(delivery, startedAt),
      eventId: delivery.event_id,
      eventType: delivery.event_type,
      deliveryId: delivery.id,
      timestamp,
      rawBody: delivery.payload,
    });
    let result: SendResult;
    try {
      result = await this.deps.send(delivery.url, { ...headers }, delivery.payload);
    } catch (err) {
      result = { statusCode: null, error: (err as Error).message, responseBody: null, retryAfterMs: null, durationMs: 0 };
    }
    this.record(delivery, startedAt, result);
  }

  private secretsOf(delivery: ClaimedDelivery, now: number): string[] {
    const secrets = [this.deps.secrets.open(delivery.secret_encrypted)];
    if (delivery.previous_secret_encrypted && (delivery.previous_secret_expires_at ?? 0) > now) {
      secrets.push(this.deps.secrets.open(delivery.previous_secret_encrypted));
    }
    return secrets;
  }

  /** Records the attempt, then the delivery's next step and the endpoint's health, in one transaction. */
  private record(delivery: ClaimedDelivery, startedAt: number, result: SendResult): void {
    const now = this.deps.clock.now();
    const number = delivery.attempt_count + 1;
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const gone = result.statusCode === 410;
    let status: DeliveryStatus = ok ? 'succeeded' : 'failed';
    let nextAttemptAt: number | null = null;
    if (!ok && !gone && number < MAX_ATTEMPTS) {
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
      this.updateEndpointHealth(delivery.endpoint_id, ok, gone, now);
    });
    if (!ok) {
      this.deps.logger.warn('webhook attempt failed', {
        delivery_id: delivery.id,
        endpoint_id: delivery.endpoint_id,
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
    const honoursRetryAfter = result.statusCode === 429 || result.statusCode === 503;
    const asked = honoursRetryAfter && result.retryAfterMs !== null ? Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS) : 0;
    return Math.max(jittered, asked);
  }

  private updateEndpointHealth(endpointId: string, ok: boolean, gone: boolean, now: number): void {
    const endpoint = this.deps.endpoints.findAny(endpointId);
    if (!endpoint) return;
    if (ok) {
      if (endpoint.failing_since !== null) this.deps.endpoints.update({ ...endpoint, failing_since: null });
      return;
    }
    const failingSince = endpoint.failing_since ?? now;
    const reason = gone
      ? 'the endpoint answered 410 Gone'
      : now - failingSince >= DISABLE_AFTER_FAILING_MS
        ? 'every attempt failed for 5 days'
        : null;
    const disable = reason !== null && endpoint.enabled === 1;
    const updated = { ...endpoint, failing_since: failingSince, updated_at: isoAt(now) };
    if (disable) Object.assign(updated, { enabled: 0, disabled_reason: reason });
    this.deps.endpoints.update(updated);
    if (disable) {
      this.deps.deliveries.park(endpointId);
      this.deps.logger.warn('webhook endpoint disabled', { endpoint_id: endpointId, reason });
    }
  }
}
