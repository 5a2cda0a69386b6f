import type { Db } from '../db/connection';

/** SQL access to the nonces of "Add to Slack" states that completed an install. */
export class SlackOAuthRepo {
  private readonly insertStmt;
  private readonly findStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT OR IGNORE INTO slack_oauth_states_used (nonce, used_at) VALUES (?, ?)');
    this.findStmt = db.prepare<[string], number>('SELECT 1 FROM slack_oauth_states_used WHERE nonce = ?').pluck();
    this.pruneStmt = db.prepare('DELETE FROM slack_oauth_states_used WHERE used_at < ?');
  }

  /** Records a nonce as used; false when it already was. */
  markUsed(nonce: string, usedAt: number): boolean {
    return this.insertStmt.run(nonce, usedAt).changes === 1;
  }

  /** Whether a nonce was already used. */
  isUsed(nonce: string): boolean {
    return this.findStmt.get(nonce) !== undefined;
  }

  /** Forgets nonces used before `before` (their states have expired anyway). */
  prune(before: number): void {
    this.pruneStmt.run(before);
  }
}
