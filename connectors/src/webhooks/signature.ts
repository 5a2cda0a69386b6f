import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Seconds a delivery's timestamp may differ from the receiver's clock before it is rejected. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';

/** 'whsec_' + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function timestampText(timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError(`timestamp must be whole unix seconds, got ${timestamp}`);
  return String(timestamp);
}

/** 'sha256=' + lowercase hex HMAC-SHA256 keyed with the whole secret over `${timestamp}.` + the raw body bytes. */
export function svcSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const hmac = createHmac('sha256', secret)
    .update(`${timestampText(timestamp)}.`)
    .update(rawBody);
  return `sha256=${hmac.digest('hex')}`;
}

/** Standard Webhooks signature: 'v1,' + base64 HMAC-SHA256 keyed with the secret's base64 part over `${msgId}.${timestamp}.${rawBody}`. */
export function standardSignature(secret: string, msgId: string, timestamp: number, rawBody: string | Buffer): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const hmac = createHmac('sha256', key)
    .update(`${msgId}.${timestampText(timestamp)}.`)
    .update(rawBody);
  return `v1,${hmac.digest('base64')}`;
}

/** The headers sent with one delivery attempt. */
export interface DeliveryHeaders {
  'Content-Type': 'application/json';
  'X-Svc-Event': string;
  'X-Svc-Delivery': string;
  'X-Svc-Timestamp': string;
  'X-Svc-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Headers of one delivery attempt, signed with every secret given (current first, then the previous one during a rotation). */
export function signDelivery(opts: {
  secrets: string[];
  eventId: string;
  eventType: string;
  deliveryId: string;
  timestamp: number;
  rawBody: string | Buffer;
}): DeliveryHeaders {
  const { secrets, eventId, timestamp, rawBody } = opts;
  if (secrets.length === 0) throw new TypeError('signDelivery needs at least one secret');
  return {
    'Content-Type': 'application/json',
    'X-Svc-Event': opts.eventType,
    'X-Svc-Delivery': opts.deliveryId,
    'X-Svc-Timestamp': timestampText(timestamp),
    'X-Svc-Signature': secrets.map((secret) => svcSignature(secret, timestamp, rawBody)).join(','),
    'webhook-id': eventId,
    'webhook-timestamp': timestampText(timestamp),
    'webhook-signature': secrets.map((secret) => standardSignature(secret, eventId, timestamp, rawBody)).join(' '),
  };
}

/** Why a delivery was rejected. */
export type WebhookVerificationFailure = 'missing_header' | 'invalid_timestamp' | 'stale_timestamp' | 'bad_signature' | 'invalid_body';

/** The only error verifyWebhook throws for a delivery that must be rejected (answer it with 401 or 400). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A verified event envelope: {id, type, created_at, data} plus any fields added later. */
export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
  [extra: string]: unknown;
}

type HeaderSource = Record<string, string | string[] | undefined> | Headers;

function headerReader(headers: HeaderSource): (name: string) => string | undefined {
  if (typeof headers.get === 'function') {
    const fetchHeaders = headers as Headers;
    return (name) => fetchHeaders.get(name) ?? undefined;
  }
  const byLowerName = new Map<string, string>();
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) byLowerName.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  }
  return (name) => byLowerName.get(name);
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function fail(reason: WebhookVerificationFailure, message: string): never {
  throw new WebhookVerificationError(reason, message);
}

function parseEnvelope(rawBody: string | Buffer): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    fail('invalid_body', 'body is not JSON');
  }
  const envelope = parsed as Partial<WebhookEvent> | null;
  const isEvent =
    typeof envelope === 'object' &&
    envelope !== null &&
    !Array.isArray(envelope) &&
    typeof envelope.id === 'string' &&
    typeof envelope.type === 'string' &&
    typeof envelope.created_at === 'string' &&
    typeof envelope.data === 'object' &&
    envelope.data !== null &&
    !Array.isArray(envelope.data);
  if (!isEvent) fail('invalid_body', 'body is not an event envelope {id, type, created_at, data}');
  return envelope as WebhookEvent;
}

/** Verifies a delivery (svc headers first, Standard Webhooks headers otherwise) against any of the secrets, then parses its event. */
export function verifyWebhook(opts: {
  rawBody: string | Buffer;
  headers: HeaderSource;
  secrets: string | string[];
  toleranceSeconds?: number;
  now?: () => number;
}): WebhookEvent {
  const { rawBody, toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS, now = Date.now } = opts;
  const secrets = (typeof opts.secrets === 'string' ? [opts.secrets] : opts.secrets).filter((secret) => secret !== '');
  // An empty secret (an unset variable) would let anyone sign, so it is a configuration error, not a rejection.
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs at least one non-empty secret');

  const header = headerReader(opts.headers);
  const svcTimestamp = header('x-svc-timestamp');
  const svcSignatures = header('x-svc-signature');
  const webhookId = header('webhook-id');
  const webhookTimestamp = header('webhook-timestamp');
  const webhookSignatures = header('webhook-signature');

  let timestampHeader: string;
  let offered: string[];
  let expectedFor: (secret: string, timestamp: number) => string;
  if (svcTimestamp !== undefined && svcSignatures !== undefined) {
    timestampHeader = svcTimestamp;
    offered = svcSignatures.split(',').map((part) => part.trim());
    expectedFor = (secret, timestamp) => svcSignature(secret, timestamp, rawBody);
  } else if (webhookId !== undefined && webhookTimestamp !== undefined && webhookSignatures !== undefined) {
    timestampHeader = webhookTimestamp;
    offered = webhookSignatures.split(/\s+/);
    expectedFor = (secret, timestamp) => standardSignature(secret, webhookId, timestamp, rawBody);
  } else {
    fail(
      'missing_header',
      'neither X-Svc-Timestamp and X-Svc-Signature nor webhook-id, webhook-timestamp and webhook-signature are present',
    );
  }

  if (!/^\d{1,15}$/.test(timestampHeader)) fail('invalid_timestamp', 'timestamp is not whole unix seconds');
  const timestamp = Number(timestampHeader);
  if (Math.abs(now() - timestamp * 1000) >= toleranceSeconds * 1000)
    fail('stale_timestamp', `timestamp is ${toleranceSeconds} s or more away from now`);

  const expected = secrets.map((secret) => expectedFor(secret, timestamp));
  if (!offered.some((signature) => expected.some((candidate) => constantTimeEqual(signature, candidate)))) {
    fail('bad_signature', 'no signature matches any secret');
  }
  return parseEnvelope(rawBody);
}
