import type { ClaimedDelivery } from './deliveries.repo';

/** What came of one attempt. */
export interface SendResult {
  /** The HTTP status of the answer (Slack's API answers 200 also for errors; see `error`). */
  statusCode: number | null;
  /** Why the attempt failed, when it did. */
  error: string | null;
  /** Set when retrying cannot help (410 Gone, a Slack channel that does not exist): the destination is disabled. */
  permanentFailure: string | null;
  /** Set when this message can never be delivered (Slack refused its blocks) though the destination is fine: no retry, nothing disabled. */
  undeliverable?: string | null;
  /** The first 1 KB of the answer. */
  responseBody: string | null;
  /** How long the destination asked us to wait (Retry-After), in ms. */
  retryAfterMs: number | null;
  durationMs: number;
}

/** The state of a destination that deliveries change. */
export interface DestinationHealth {
  enabled: boolean;
  disabled_reason: string | null;
  /** Epoch ms of the first failed attempt since the last success. */
  failing_since: number | null;
  last_error: string | null;
}

/** One kind of destination (webhook endpoints, Slack, Teams): how to attempt a delivery there and where its health is kept. */
export interface DeliveryTarget {
  /** Makes one attempt at `now`; never throws. */
  attempt(delivery: ClaimedDelivery, now: number): Promise<SendResult>;
  /** Optional: reads inside the claim's transaction what the attempts of these just-claimed deliveries need (they start right after it commits). */
  prepare?(claimed: ClaimedDelivery[]): void;
  /** The destination's health, or undefined when it no longer exists. */
  health(destinationId: string): DestinationHealth | undefined;
  /** Stores the destination's health after an attempt (`previous` is what `health` returned); `delivered` tells whether it succeeded. */
  saveHealth(
    destinationId: string,
    health: DestinationHealth,
    outcome: { previous: DestinationHealth; delivered: boolean; now: number },
  ): void;
}

/** A result for an attempt that failed before anything was sent. */
export function failedBeforeSending(error: string, permanent = false): SendResult {
  return { statusCode: null, error, permanentFailure: permanent ? error : null, responseBody: null, retryAfterMs: null, durationMs: 0 };
}

/** True when two health states differ in anything that is stored. */
export function healthChanged(a: DestinationHealth, b: DestinationHealth): boolean {
  return (
    a.enabled !== b.enabled ||
    a.disabled_reason !== b.disabled_reason ||
    a.failing_since !== b.failing_since ||
    a.last_error !== b.last_error
  );
}
