import { createHmac, timingSafeEqual } from 'node:crypto';

/** Seconds a delivery's X-Svc-Timestamp may differ from the clock before it is refused as a replay. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Why a request is not a genuine svc delivery. */
export type DeliveryRejection = 'missing_header' | 'invalid_timestamp' | 'stale_timestamp' | 'bad_signature';

/** What a delivery carries to be checked: its raw body and its X-Svc-Timestamp and X-Svc-Signature headers. */
export interface SignedDelivery {
  rawBody: string;
  timestamp: string | undefined;
  signatures: string | undefined;
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Why a delivery fails svc's signature scheme (HMAC-SHA256 with the endpoint secret over
 * `${timestamp}.` + the raw body, sent as `sha256=<hex>`, comma-separated during a rotation), or null when it passes.
 */
export function deliveryRejection(delivery: SignedDelivery, secret: string, nowMs: number): DeliveryRejection | null {
  // An empty secret would accept anyone's signature: that is a broken subscription, not a bad request.
  if (secret === '') throw new Error('No signing secret was kept for this subscription; turn the Zap off and on again.');
  const { rawBody, timestamp, signatures } = delivery;
  if (timestamp === undefined || signatures === undefined) return 'missing_header';
  if (!/^\d{1,15}$/.test(timestamp)) return 'invalid_timestamp';
  if (Math.abs(nowMs - Number(timestamp) * 1000) >= SIGNATURE_TOLERANCE_SECONDS * 1000) return 'stale_timestamp';
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody, 'utf8').digest('hex')}`;
  return signatures.split(',').some((offered) => constantTimeEqual(offered.trim(), expected)) ? null : 'bad_signature';
}
