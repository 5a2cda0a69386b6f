import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors';

/** What a token is for; each purpose signs with its own key, so a token of one is worthless as another. */
export type TokenPurpose = 'room-join' | 'room-credential' | 'embed' | 'recording-download' | 'dashboard-sign-in' | 'slack-oauth-state';

const TOKEN_REFUSED = (): AppError => new AppError('unauthorized', 'The link or token is invalid or has expired');

/**
 * Short, URL-safe signed tokens (`<payload>.<signature>`, both base64url) with an expiry: HMAC-SHA256
 * under a key derived from the master key per purpose, checked in constant time on every use.
 */
export class SignedTokens {
  private readonly keys = new Map<TokenPurpose, Buffer>();

  constructor(private readonly masterKey: Buffer) {}

  /** A token carrying `claims` until `expiresAt` (epoch ms); `prefix` is prepended as is (e.g. `svc_et_`). */
  sign(purpose: TokenPurpose, claims: Record<string, unknown>, expiresAt: number, prefix = ''): string {
    const payload = Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(expiresAt / 1000) })).toString('base64url');
    return `${prefix}${payload}.${this.mac(purpose, payload)}`;
  }

  /** The claims of a token this service signed for `purpose` and that has not expired at `now`; otherwise unauthorized. */
  verify<Claims extends Record<string, unknown>>(purpose: TokenPurpose, token: string, now: number, prefix = ''): Claims & { exp: number } {
    const claims = this.signedClaims<Claims>(purpose, token, prefix);
    if (claims.exp * 1000 <= now) throw TOKEN_REFUSED();
    return claims;
  }

  /** The claims of a token this service signed for `purpose`, expired or not (the caller checks `exp`); unauthorized otherwise. */
  signedClaims<Claims extends Record<string, unknown>>(purpose: TokenPurpose, token: string, prefix = ''): Claims & { exp: number } {
    const refused = TOKEN_REFUSED();
    if (!token.startsWith(prefix)) throw refused;
    const [payload, signature, extra] = token.slice(prefix.length).split('.');
    if (!payload || !signature || extra !== undefined) throw refused;
    const expected = Buffer.from(this.mac(purpose, payload));
    const offered = Buffer.from(signature);
    if (offered.length !== expected.length || !timingSafeEqual(offered, expected)) throw refused;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw refused;
    }
    const exp = (claims as { exp?: unknown } | null)?.exp;
    if (typeof exp !== 'number') throw refused;
    return claims as Claims & { exp: number };
  }

  private mac(purpose: TokenPurpose, payload: string): string {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.alloc(0), `svc signed token: ${purpose}`, 32));
      this.keys.set(purpose, key);
    }
    return createHmac('sha256', key).update(payload).digest('base64url');
  }
}
