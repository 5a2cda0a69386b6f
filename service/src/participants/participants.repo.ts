import type { Db } from '../db/connection';

/** Someone who joined a meeting's room, as stored. */
export interface ParticipantRow {
  id: string;
  meeting_id: string;
  name: string;
  role: 'host' | 'guest';
  identity: string;
  joined_at: string;
  left_at: string | null;
}

/** SQL access to the participants table. */
export class ParticipantsRepo {
  private readonly insertStmt;
  private readonly listStmt;
  private readonly leaveStmt;
  private readonly leaveAllStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO participants (id, meeting_id, name, role, identity, joined_at, left_at)
      VALUES (@id, @meeting_id, @name, @role, @identity, @joined_at, @left_at)`);
    this.listStmt = db.prepare<[string, string, number], ParticipantRow>(
      'SELECT * FROM participants WHERE meeting_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    );
    this.leaveStmt = db.prepare('UPDATE participants SET left_at = ? WHERE id = ? AND left_at IS NULL');
    this.leaveAllStmt = db.prepare('UPDATE participants SET left_at = ? WHERE left_at IS NULL');
  }

  insert(row: ParticipantRow): void {
    this.insertStmt.run(row);
  }

  /** Up to `limit` participants of a meeting with ids below `before` (all when null), newest first. */
  list(meetingId: string, before: string | null, limit: number): ParticipantRow[] {
    return this.listStmt.all(meetingId, before ?? '~', limit);
  }

  /** Records that a participant left; false when already recorded. */
  markLeft(id: string, at: string): boolean {
    return this.leaveStmt.run(at, id).changes === 1;
  }

  /** Records every participant still in a room as left at `at`; the number of rows changed. */
  markAllLeft(at: string): number {
    return this.leaveAllStmt.run(at).changes;
  }
}
