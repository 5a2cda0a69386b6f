import { createHash } from 'node:crypto';
import type { Transaction } from '../shared/transaction';
import { AppError } from '../shared/errors';
import type { Clock } from '../shared/clock';
import type { IdempotencyRepo } from './idempotency.repo';

const RETENTION_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 1000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** A status and JSON body to send. */
export interface Outcome {
  status: number;
  body: unknown;
  replayed: boolean;
}

/**
 * Makes a create safe to retry: the first request with an Idempotency-Key runs and its answer is
 * stored in the same transaction as its writes; a retry with the same key and body gets that answer
 * again (for 24 h), and the same key with a different request gets 409.
 */
export class IdempotencyService {
  private lastPurge = 0;

  constructor(
    private readonly transaction: Transaction,
    private readonly repo: IdempotencyRepo,
    private readonly clock: Clock,
  ) {}

  run(
    apiKeyId: string,
    idempotencyKey: string | undefined,
    request: { method: string; path: string; body: unknown },
    perform: () => { status: number; body: unknown },
  ): Outcome {
    if (idempotencyKey === undefined) return { ...this.transaction(perform), replayed: false };
    if (!KEY_SHAPE.test(idempotencyKey)) {
      throw AppError.invalid([{ param: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    const fingerprint = fingerprintOf(request);
    const now = this.clock.now();
    this.purgeExpired(now);
    return this.transaction((): Outcome => {
      const stored = this.repo.find(apiKeyId, idempotencyKey, now - RETENTION_MS);
      if (stored) {
        if (stored.request_fingerprint !== fingerprint) {
          throw new AppError('conflict', 'This Idempotency-Key was already used with a different request', {
            param: 'Idempotency-Key',
          });
        }
        return { status: stored.status_code, body: JSON.parse(stored.response_body), replayed: true };
      }
      const outcome = perform();
      this.repo.insert({
        api_key_id: apiKeyId,
        idempotency_key: idempotencyKey,
        request_fingerprint: fingerprint,
        status_code: outcome.status,
        response_body: JSON.stringify(outcome.body),
        created_at_ms: now,
      });
      return { ...outcome, replayed: false };
    });
  }

  private purgeExpired(now: number): void {
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    this.repo.purge(now - RETENTION_MS);
  }
}

function fingerprintOf(request: { method: string; path: string; body: unknown }): string {
  return createHash('sha256')
    .update(`${request.method} ${request.path}\n${canonicalJson(request.body ?? {})}`)
    .digest('hex');
}

/** JSON with object keys sorted, so the same body in another key order has the same fingerprint. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
