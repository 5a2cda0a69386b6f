import type { Db } from '../db/connection';

/** SQL access to the embed_origins table. */
export class EmbedRepo {
  private readonly getStmt;
  private readonly putStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { origins: string }>('SELECT origins FROM embed_origins WHERE meeting_id = ?');
    this.putStmt = db.prepare(`INSERT INTO embed_origins (meeting_id, origins, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (meeting_id) DO UPDATE SET origins = excluded.origins, updated_at = excluded.updated_at`);
  }

  /** The meeting's allowed parent origins (empty when never set). */
  origins(meetingId: string): string[] {
    const row = this.getStmt.get(meetingId);
    return row ? (JSON.parse(row.origins) as string[]) : [];
  }

  /** Replaces the meeting's list. */
  replace(meetingId: string, origins: readonly string[], updatedAt: string): void {
    this.putStmt.run(meetingId, JSON.stringify(origins), updatedAt);
  }
}
