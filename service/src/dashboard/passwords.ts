import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

// N = 2^15, r = 8 (32 MB per hash): below OWASP's 2^17 so a sign-in on a small server stays near 100 ms.
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

/** The shortest and longest password accepted. */
export const PASSWORD_LENGTH = { min: 10, max: 200 } as const;

/** A self-describing scrypt hash of `password`: `scrypt$N$r$p$salt$hash` (salt and hash base64url). */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize('NFC'), salt, KEY_LENGTH, { N, r: R, p: P, maxmem: MAX_MEMORY });
  return ['scrypt', N, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** True when `password` matches `stored` (compared in constant time); a null `stored` still costs one hash, so timing tells nothing. */
export function verifyPassword(password: string, stored: string | null): boolean {
  const parts = (stored ?? '').split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  const known = scheme === 'scrypt' && parts.length === 6;
  const expected = known ? Buffer.from(hash!, 'base64url') : Buffer.alloc(KEY_LENGTH);
  const actual = scryptSync(password.normalize('NFC'), known ? Buffer.from(salt!, 'base64url') : Buffer.alloc(16), expected.length || 1, {
    N: known ? Number(n) : N,
    r: known ? Number(r) : R,
    p: known ? Number(p) : P,
    maxmem: MAX_MEMORY,
  });
  return known && actual.length === expected.length && timingSafeEqual(actual, expected);
}
