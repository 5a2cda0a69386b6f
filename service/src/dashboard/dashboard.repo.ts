import type { Db } from '../db/connection';

/** A dashboard session as stored: a hash of its secret, never the secret. */
export interface SessionRow {
  id: string;
  token_hash: Buffer;
  user_id: string;
  method: SignInMethod;
  created_at: string;
  /** Epoch ms after which the session is no longer accepted. */
  expires_at: number;
  revoked_at: string | null;
}

/** How a session was opened. */
export type SignInMethod = 'link' | 'password';

/** SQL access to dashboard sessions, used sign-in links and user passwords. */
export class DashboardRepo {
  private readonly insertSessionStmt;
  private readonly sessionById;
  private readonly revokeStmt;
  private readonly revokeAllOfUser;
  private readonly purgeSessionsStmt;
  private readonly useLinkStmt;
  private readonly purgeLinksStmt;
  private readonly passwordOf;
  private readonly setPasswordStmt;

  constructor(db: Db) {
    this.insertSessionStmt =
      db.prepare(`INSERT INTO dashboard_sessions (id, token_hash, user_id, method, created_at, expires_at, revoked_at)
      VALUES (@id, @token_hash, @user_id, @method, @created_at, @expires_at, @revoked_at)`);
    this.sessionById = db.prepare<[string], SessionRow>('SELECT * FROM dashboard_sessions WHERE id = ?');
    this.revokeStmt = db.prepare<[string, string]>('UPDATE dashboard_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.revokeAllOfUser = db.prepare<[string, string]>(
      'UPDATE dashboard_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL',
    );
    this.purgeSessionsStmt = db.prepare<[number]>('DELETE FROM dashboard_sessions WHERE expires_at <= ?');
    this.useLinkStmt = db.prepare<[string, number]>(
      'INSERT INTO dashboard_used_links (link_id, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING',
    );
    this.purgeLinksStmt = db.prepare<[number]>('DELETE FROM dashboard_used_links WHERE expires_at <= ?');
    this.passwordOf = db.prepare<[string], { password_hash: string | null }>('SELECT password_hash FROM users WHERE id = ?');
    this.setPasswordStmt = db.prepare<[string, string]>('UPDATE users SET password_hash = ? WHERE id = ?');
  }

  insertSession(row: SessionRow): void {
    this.insertSessionStmt.run(row);
  }

  findSession(id: string): SessionRow | undefined {
    return this.sessionById.get(id);
  }

  revokeSession(id: string, at: string): void {
    this.revokeStmt.run(at, id);
  }

  /** Ends every session of the user. */
  revokeSessionsOf(userId: string, at: string): void {
    this.revokeAllOfUser.run(at, userId);
  }

  /** Deletes sessions that expired at or before `now`. */
  purgeSessions(now: number): void {
    this.purgeSessionsStmt.run(now);
  }

  /** Records a sign-in link as used; false when it already was. Forgets links that expired at or before `now`. */
  useLink(linkId: string, expiresAt: number, now: number): boolean {
    this.purgeLinksStmt.run(now);
    return this.useLinkStmt.run(linkId, expiresAt).changes === 1;
  }

  /** The user's scrypt password hash, or null when the user has no password. */
  passwordHash(userId: string): string | null {
    return this.passwordOf.get(userId)?.password_hash ?? null;
  }

  setPasswordHash(userId: string, hash: string): void {
    this.setPasswordStmt.run(hash, userId);
  }
}

/** SQL access to failed sign-ins, counted per subject (a hash of an address or an account). */
export class SignInFailuresRepo {
  private readonly countStmt;
  private readonly insertStmt;
  private readonly purgeStmt;

  constructor(db: Db) {
    this.countStmt = db
      .prepare<[Buffer, number], number>('SELECT COUNT(*) FROM dashboard_sign_in_failures WHERE subject = ? AND failed_at > ?')
      .pluck();
    this.insertStmt = db.prepare<[Buffer, number]>('INSERT INTO dashboard_sign_in_failures (subject, failed_at) VALUES (?, ?)');
    this.purgeStmt = db.prepare<[number]>('DELETE FROM dashboard_sign_in_failures WHERE failed_at <= ?');
  }

  /** Failures of `subject` after `since` (epoch ms). */
  count(subject: Buffer, since: number): number {
    return this.countStmt.get(subject, since)!;
  }

  /** Records one failure at `at` for each subject, and forgets failures at or before `forgetBefore`. */
  record(subjects: Buffer[], at: number, forgetBefore: number): void {
    this.purgeStmt.run(forgetBefore);
    for (const subject of subjects) this.insertStmt.run(subject, at);
  }
}
