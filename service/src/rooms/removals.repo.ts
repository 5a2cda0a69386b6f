import type { Db } from '../db/connection';

/** SQL access to the room_removals table: the keys of people a host removed, per meeting. */
export class RemovalsRepo {
  private readonly insertStmt;
  private readonly findStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[string, string, string]>(
      'INSERT OR IGNORE INTO room_removals (meeting_id, removal_key, removed_at) VALUES (?, ?, ?)',
    );
    this.findStmt = db.prepare<[string, string], { one: 1 }>('SELECT 1 AS one FROM room_removals WHERE meeting_id = ? AND removal_key = ?');
    this.deleteStmt = db.prepare<[string, string]>('DELETE FROM room_removals WHERE meeting_id = ? AND removal_key = ?');
  }

  /** Records every key of a removed person. */
  add(meetingId: string, keys: readonly string[], removedAt: string): void {
    for (const key of keys) this.insertStmt.run(meetingId, key, removedAt);
  }

  /** True when any of the keys was removed from the meeting. */
  anyRemoved(meetingId: string, keys: readonly string[]): boolean {
    return keys.some((key) => this.findStmt.get(meetingId, key) !== undefined);
  }

  /** Lets a person back: forgets every one of their keys. */
  lift(meetingId: string, keys: readonly string[]): void {
    for (const key of keys) this.deleteStmt.run(meetingId, key);
  }
}
