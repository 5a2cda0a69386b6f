import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { AppError } from '../shared/errors';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { ApiKeyRow, KeysRepo } from './keys.repo';
import type { Scope } from './scopes';

const PREFIX = 'svc_sk_';
const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 40;
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = new RegExp(`^${PREFIX}[0-9a-z]{${LOOKUP_LENGTH + SECRET_LENGTH}}$`);

/** What the caller of `create` chooses about a new key. */
export interface NewKey {
  userId: string;
  name: string;
  scopes: Scope[];
  organizationId?: string | null;
  expiresAt?: string | null;
  rateLimitPerSecond?: number | null;
  rateLimitPerMinute?: number | null;
}

/** Issues, verifies and revokes API keys. The plain key exists only in `create`'s answer. */
export class KeysService {
  constructor(
    private readonly repo: KeysRepo,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** Creates a key and returns its row with the plain key, which is never stored. */
  create(input: NewKey): { key: string; row: ApiKeyRow } {
    const body = Array.from({ length: LOOKUP_LENGTH + SECRET_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    const key = PREFIX + body;
    const row: ApiKeyRow = {
      id: this.ids.next('key'),
      user_id: input.userId,
      organization_id: input.organizationId ?? null,
      name: input.name,
      lookup: body.slice(0, LOOKUP_LENGTH),
      secret_hash: hashKey(key),
      scopes: [...new Set(input.scopes)],
      rate_limit_per_second: input.rateLimitPerSecond ?? null,
      rate_limit_per_minute: input.rateLimitPerMinute ?? null,
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      created_at: isoAt(this.clock.now()),
      last_used_at: null,
    };
    this.repo.insert(row);
    return { key, row };
  }

  list(): ApiKeyRow[] {
    return this.repo.list();
  }

  /** Revokes a key with immediate effect. */
  revoke(id: string): ApiKeyRow {
    const row = this.repo.findById(id);
    if (!row) throw AppError.notFound(`API key ${id}`);
    if (!this.repo.revoke(id, isoAt(this.clock.now()))) throw AppError.conflict(`API key ${id} is already revoked`);
    return this.repo.findById(id)!;
  }
}

/** The non-secret part of a well-formed key that finds its row, or undefined for a malformed key. */
export function lookupOf(presented: string): string | undefined {
  return KEY_SHAPE.test(presented) ? presented.slice(PREFIX.length, PREFIX.length + LOOKUP_LENGTH) : undefined;
}

/** True when `presented` is the key of `row` (compared in constant time) and the key is neither revoked nor expired at `now`. */
export function isLiveKey(row: ApiKeyRow, presented: string, now: number): boolean {
  if (!timingSafeEqual(row.secret_hash, hashKey(presented))) return false;
  return row.revoked_at === null && (row.expires_at === null || Date.parse(row.expires_at) > now);
}

/** Keys carry 200+ bits of randomness, so a fast hash is as safe as a slow one here. */
function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** The first characters of a key, safe to show in listings to tell keys apart. */
export function keyHint(row: ApiKeyRow): string {
  return `${PREFIX}${row.lookup}…`;
}
