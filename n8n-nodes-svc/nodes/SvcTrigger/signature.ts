import { createHmac, timingSafeEqual } from 'node:crypto';

/** Seconds a delivery's timestamp may differ from this clock before it is rejected. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The outcome of checking one delivery: `valid`, or why it must be rejected. */
export type SignatureCheck = 'valid' | 'missing_header' | 'invalid_timestamp' | 'stale_timestamp' | 'bad_signature';

/** One received delivery: the raw body bytes and the X-Svc-Timestamp and X-Svc-Signature header values. */
export interface SignedDelivery {
  rawBody: Buffer;
  timestamp: string | undefined;
  signatures: string | undefined;
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Checks svc's scheme: `sha256=` + hex HMAC-SHA256 keyed with the whole secret over `${timestamp}.` + raw body; any of the comma-separated signatures may match. */
export function checkSvcSignature(secret: string, delivery: SignedDelivery, nowMs: number = Date.now()): SignatureCheck {
  const { rawBody, timestamp, signatures } = delivery;
  if (timestamp === undefined || signatures === undefined) return 'missing_header';
  if (!/^\d{1,15}$/.test(timestamp)) return 'invalid_timestamp';
  if (Math.abs(nowMs - Number(timestamp) * 1000) >= SIGNATURE_TOLERANCE_SECONDS * 1000) return 'stale_timestamp';
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
  const offered = signatures.split(',').map((signature) => signature.trim());
  return offered.some((signature) => constantTimeEqual(signature, expected)) ? 'valid' : 'bad_signature';
}
