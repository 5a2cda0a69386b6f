import type { Db } from '../db/connection';

/** One timed piece of a transcript; times in seconds from the start of the recording. */
export interface TranscriptSegment {
  start: number;
  end: number;
  speaker: string | null;
  text: string;
}

/** A meeting's transcript. */
export interface Transcript {
  meeting_id: string;
  language: string;
  status: 'processing' | 'ready' | 'failed';
  text: string;
  segments: TranscriptSegment[];
  created_at: string;
  updated_at: string;
}

/** SQL access to the transcripts table (one transcript per meeting). */
export class TranscriptsRepo {
  private readonly upsertStmt;
  private readonly byMeeting;

  constructor(db: Db) {
    this.upsertStmt = db.prepare(`INSERT INTO transcripts (meeting_id, language, status, text, segments, created_at, updated_at)
      VALUES (@meeting_id, @language, @status, @text, @segments, @created_at, @updated_at)
      ON CONFLICT (meeting_id) DO UPDATE SET language = excluded.language, status = excluded.status,
        text = excluded.text, segments = excluded.segments, updated_at = excluded.updated_at`);
    this.byMeeting = db.prepare<[string], Omit<Transcript, 'segments'> & { segments: string }>(
      'SELECT * FROM transcripts WHERE meeting_id = ?',
    );
  }

  save(transcript: Transcript): void {
    this.upsertStmt.run({ ...transcript, segments: JSON.stringify(transcript.segments) });
  }

  find(meetingId: string): Transcript | undefined {
    const row = this.byMeeting.get(meetingId);
    return row && { ...row, segments: JSON.parse(row.segments) as TranscriptSegment[] };
  }
}
