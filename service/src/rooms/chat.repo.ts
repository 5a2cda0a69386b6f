import type { Db } from '../db/connection';
import type { ChatMessage } from './room.protocol';

/** A chat message as stored: the wire form, unchanged. */
export type ChatMessageRow = ChatMessage;

/** SQL access to the chat_messages table. */
export class ChatRepo {
  private readonly insertStmt;
  private readonly pageStmt;
  private readonly latestStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO chat_messages (id, meeting_id, participant_id, sender_name, sender_identity, text, sent_at)
      VALUES (@id, @meeting_id, @participant_id, @sender_name, @sender_identity, @text, @sent_at)`);
    this.pageStmt = db.prepare<[string, string, number], ChatMessageRow>(
      'SELECT * FROM chat_messages WHERE meeting_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    );
    this.latestStmt = db.prepare<[string, number], ChatMessageRow>(
      'SELECT * FROM (SELECT * FROM chat_messages WHERE meeting_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id',
    );
  }

  insert(row: ChatMessageRow): void {
    this.insertStmt.run(row);
  }

  /** Up to `limit` messages of a meeting with ids below `before` (all when null), newest first. */
  list(meetingId: string, before: string | null, limit: number): ChatMessageRow[] {
    return this.pageStmt.all(meetingId, before ?? '~', limit);
  }

  /** The newest `limit` messages of a meeting, oldest first (what a joining peer is shown). */
  latest(meetingId: string, limit: number): ChatMessageRow[] {
    return this.latestStmt.all(meetingId, limit);
  }
}
