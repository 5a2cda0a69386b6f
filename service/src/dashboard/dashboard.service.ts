import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IdentityService, Principal } from '../identity/identity.service';
import type { UserRow } from '../identity/identity.repo';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import type { SignedTokens } from '../shared/signed-tokens';
import type { Transaction } from '../shared/transaction';
import type { DashboardRepo, SessionRow, SignInMethod } from './dashboard.repo';
import { hashPassword, PASSWORD_LENGTH, verifyPassword } from './passwords';
import type { SignInAttempts } from './sign-in-attempts';

/** How long a one-time sign-in link is valid. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;

/** A sign-in link for a person to open. */
export interface SignInLink {
  url: string;
  expires_at: string;
}

/** A session just opened: the token goes into the cookie and is never seen again. */
export interface OpenedSession {
  token: string;
  expiresAt: number;
}

/** A valid session with who it belongs to. */
export interface ActiveSession {
  session: SessionRow;
  user: UserRow;
  principal: Principal;
  /** The token every state-changing request of this session must carry in X-CSRF-Token. */
  csrfToken: string;
}

/** Dashboard settings. */
export interface DashboardSettings {
  baseUrl: string;
  sessionTtlMs: number;
}

const TOKEN_PREFIX = 'svc_ds_';
const REFUSED = 'The sign-in link is invalid, expired or already used; run `npx svc dashboard-link` for a new one';

/** What DashboardService works with. */
export interface DashboardServiceDeps {
  repo: DashboardRepo;
  identity: IdentityService;
  tokens: SignedTokens;
  attempts: SignInAttempts;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  settings: DashboardSettings;
}

/** Signing in to the dashboard (one-time links, passwords), its sessions and their CSRF tokens. */
export class DashboardService {
  private readonly repo: DashboardRepo;
  private readonly identity: IdentityService;
  private readonly tokens: SignedTokens;
  private readonly attempts: SignInAttempts;
  private readonly transaction: Transaction;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;
  private readonly settings: DashboardSettings;

  constructor(deps: DashboardServiceDeps) {
    this.repo = deps.repo;
    this.identity = deps.identity;
    this.tokens = deps.tokens;
    this.attempts = deps.attempts;
    this.transaction = deps.transaction;
    this.ids = deps.ids;
    this.clock = deps.clock;
    this.settings = deps.settings;
  }

  /** A one-time link that signs `userId` (the owner by default) in, valid 15 minutes. */
  signInLink(userId: string = this.identity.ensureOwner().owner.id): SignInLink {
    const expiresAt = this.clock.now() + SIGN_IN_LINK_TTL_MS;
    const token = this.tokens.sign('dashboard-sign-in', { sub: userId, jti: randomBytes(12).toString('base64url') }, expiresAt);
    return { url: `${this.settings.baseUrl}/sign-in#token=${token}`, expires_at: isoAt(expiresAt) };
  }

  /** Opens a session for the link's user; the link works once. `client` is the caller's address, for the attempt limit. */
  signInWithLink(token: string, client: string): OpenedSession {
    const subjects = [`address:${client}`];
    this.attempts.check(subjects);
    const now = this.clock.now();
    let claims: { sub?: unknown; jti?: unknown; exp: number };
    try {
      claims = this.tokens.verify('dashboard-sign-in', token, now);
    } catch {
      this.attempts.fail(subjects);
      throw new AppError('unauthorized', REFUSED);
    }
    const user = typeof claims.sub === 'string' ? this.identity.findUser(claims.sub) : undefined;
    const fresh = user && typeof claims.jti === 'string' && this.repo.useLink(claims.jti, claims.exp * 1000, now);
    if (!user || !fresh) {
      this.attempts.fail(subjects);
      throw new AppError('unauthorized', REFUSED);
    }
    return this.open(user, 'link');
  }

  /** Opens a session for the account with this email and password; the same refusal whatever was wrong. */
  signInWithPassword(email: string, password: string, client: string): OpenedSession {
    const subjects = [`address:${client}`, `account:${email.toLowerCase()}`];
    this.attempts.check(subjects);
    const user = this.identity.findUserByEmail(email);
    const ok = verifyPassword(password, user ? this.repo.passwordHash(user.id) : null);
    if (!user || !ok) {
      this.attempts.fail(subjects);
      throw new AppError('unauthorized', 'Wrong email or password');
    }
    return this.open(user, 'password');
  }

  /** Sets (or replaces) the password of the user with this email. */
  setPassword(email: string, password: string): UserRow {
    const user = this.identity.findUserByEmail(email);
    if (!user) throw AppError.notFound(`User ${email}`);
    if (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max) {
      throw AppError.invalid([{ param: 'password', message: `must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters long` }]);
    }
    this.repo.setPasswordHash(user.id, hashPassword(password));
    return user;
  }

  /** The session a cookie token opens, or undefined when it is unknown, revoked or expired. */
  authenticate(token: string): ActiveSession | undefined {
    const parsed = parseToken(token);
    const session = parsed && this.repo.findSession(parsed.id);
    if (!parsed || !session) return undefined;
    if (!timingSafeEqual(session.token_hash, sha256(token))) return undefined;
    if (session.revoked_at !== null || session.expires_at <= this.clock.now()) return undefined;
    const user = this.identity.findUser(session.user_id);
    if (!user) return undefined;
    return { session, user, principal: this.identity.sessionPrincipal(user, session.id, session.created_at), csrfToken: csrfOf(token) };
  }

  /** True when `presented` is the CSRF token of the session `token` opens (compared in constant time). */
  checkCsrf(active: ActiveSession, presented: string | undefined): boolean {
    const expected = Buffer.from(active.csrfToken);
    const offered = Buffer.from(presented ?? '');
    return offered.length === expected.length && timingSafeEqual(offered, expected);
  }

  /** Ends a session at once. */
  signOut(active: ActiveSession): void {
    this.repo.revokeSession(active.session.id, isoAt(this.clock.now()));
  }

  /** Opens a session for `user`, e.g. one who has just accepted an invitation. */
  open(user: UserRow, method: SignInMethod): OpenedSession {
    const now = this.clock.now();
    const id = this.ids.next('ses');
    const token = `${TOKEN_PREFIX}${id}.${randomBytes(32).toString('base64url')}`;
    const expiresAt = now + this.settings.sessionTtlMs;
    this.transaction(() => {
      this.repo.purgeSessions(now);
      this.repo.insertSession({
        id,
        token_hash: sha256(token),
        user_id: user.id,
        method,
        created_at: isoAt(now),
        expires_at: expiresAt,
        revoked_at: null,
      });
    });
    return { token, expiresAt };
  }
}

function parseToken(token: string): { id: string } | undefined {
  const match = /^svc_ds_(ses_[0-9a-z]{26})\.[A-Za-z0-9_-]{43}$/.exec(token);
  return match ? { id: match[1]! } : undefined;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The CSRF token of a session: derived from its secret token, so nothing more is stored and the page can only learn it from the API. */
function csrfOf(token: string): string {
  return createHash('sha256').update(`csrf\0${token}`).digest('base64url');
}
