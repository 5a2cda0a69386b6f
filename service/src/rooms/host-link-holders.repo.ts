import type { Db } from '../db/connection';

/** SQL access to host_link_holders: which browser (its secret's SHA-256) owns each redeemed host link. */
export class HostLinkHoldersRepo {
  private readonly insertStmt;
  private readonly findStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[string, string, string, string]>(
      'INSERT OR IGNORE INTO host_link_holders (meeting_id, link_id, holder_hash, bound_at) VALUES (?, ?, ?, ?)',
    );
    this.findStmt = db.prepare<[string, string], { holder_hash: string }>(
      'SELECT holder_hash FROM host_link_holders WHERE meeting_id = ? AND link_id = ?',
    );
  }

  /** Binds the link to `holderHash` unless it is bound already; returns the hash it is bound to. */
  bindOnce(meetingId: string, linkId: string, holderHash: string, boundAt: string): string {
    this.insertStmt.run(meetingId, linkId, holderHash, boundAt);
    return this.findStmt.get(meetingId, linkId)!.holder_hash;
  }
}
