import type { Db } from '../db/connection';

/**
 * One timed piece of a transcript; times in seconds from the start of the recording. `speaker` is the name the
 * participant whose microphone it came from had then, `participant_id` that participant; both null when unknown.
 */
export interface TranscriptSegment {
  start: number;
  end: number;
  speaker: string | null;
  participant_id: string | null;
  text: string;
}

/** A meeting's transcript: its main room's, or one of its breakout rooms'. */
export interface Transcript {
  meeting_id: string;
  /** The breakout room it was made in; null for the main room's (the meeting's transcript). */
  breakout_room_id: string | null;
  language: string;
  status: 'processing' | 'ready' | 'failed';
  text: string;
  segments: TranscriptSegment[];
  created_at: string;
  updated_at: string;
}

/** A transcript as lists show it: which meeting, in what language, how far along; no text. */
export type TranscriptListing = Pick<Transcript, 'meeting_id' | 'language' | 'status' | 'updated_at'>;

/** SQL access to the transcripts table: one transcript per room of a meeting (its main room's and each breakout room's). */
export class TranscriptsRepo {
  private readonly upsertStmt;
  private readonly byRoom;
  private readonly inOrganizations;
  private readonly ofBreakoutRoomsStmt;

  constructor(db: Db) {
    // The conflict target is the unique index of migration 0030 (the main room's breakout_room_id is null).
    this.upsertStmt =
      db.prepare(`INSERT INTO transcripts (meeting_id, breakout_room_id, language, status, text, segments, created_at, updated_at)
      VALUES (@meeting_id, @breakout_room_id, @language, @status, @text, @segments, @created_at, @updated_at)
      ON CONFLICT (meeting_id, ifnull(breakout_room_id, '')) DO UPDATE SET language = excluded.language, status = excluded.status,
        text = excluded.text, segments = excluded.segments, updated_at = excluded.updated_at`);
    this.byRoom = db.prepare<[string, string], Omit<Transcript, 'segments'> & { segments: string }>(
      `SELECT meeting_id, breakout_room_id, language, status, text, segments, created_at, updated_at
      FROM transcripts WHERE meeting_id = ? AND ifnull(breakout_room_id, '') = ?`,
    );
    this.inOrganizations = db.prepare<[string, string, number], TranscriptListing>(`SELECT t.meeting_id, t.language, t.status, t.updated_at
      FROM transcripts t JOIN meetings m ON m.id = t.meeting_id
      WHERE m.organization_id IN (SELECT value FROM json_each(?)) AND t.meeting_id < ? AND t.breakout_room_id IS NULL
      ORDER BY t.meeting_id DESC LIMIT ?`);
    this.ofBreakoutRoomsStmt = db.prepare<[string], { breakout_room_id: string; updated_at: string }>(
      'SELECT breakout_room_id, updated_at FROM transcripts WHERE meeting_id = ? AND breakout_room_id IS NOT NULL',
    );
  }

  save(transcript: Transcript): void {
    this.upsertStmt.run({ ...transcript, segments: JSON.stringify(transcript.segments) });
  }

  /** The transcript of a meeting's main room, or of its breakout room `breakoutRoomId`. */
  find(meetingId: string, breakoutRoomId: string | null = null): Transcript | undefined {
    const row = this.byRoom.get(meetingId, breakoutRoomId ?? '');
    // Transcripts stored before segments named their participant have no participant_id.
    const segments =
      row && (JSON.parse(row.segments) as TranscriptSegment[]).map((s) => ({ ...s, participant_id: s.participant_id ?? null }));
    return row && { ...row, segments: segments! };
  }

  /** When each of a meeting's breakout rooms' transcripts was last stored, by breakout room id (rooms without one left out). */
  storedInBreakoutRooms(meetingId: string): Map<string, string> {
    return new Map(this.ofBreakoutRoomsStmt.all(meetingId).map((row) => [row.breakout_room_id, row.updated_at]));
  }

  /** Up to `limit` main-room transcripts (without their text) of meetings in `orgIds` with meeting ids below `before` (all when null), newest meeting first. */
  list(orgIds: string[], before: string | null, limit: number): TranscriptListing[] {
    return this.inOrganizations.all(JSON.stringify(orgIds), before ?? '~', limit);
  }
}
