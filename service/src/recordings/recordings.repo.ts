import type { Db } from '../db/connection';

/** A recording of a meeting, as stored; its file lives under the data directory. */
export interface RecordingRow {
  id: string;
  meeting_id: string;
  /** video: the composite MP4 anyone can play; tracks: the per-track file it is rendered from; audio: audio only. */
  kind: 'video' | 'tracks' | 'audio';
  status: 'processing' | 'ready' | 'failed';
  duration_seconds: number | null;
  file_name: string | null;
  content_type: string | null;
  size_bytes: number | null;
  created_at: string;
  ready_at: string | null;
  /** Why a failed recording failed; null otherwise. */
  failure_reason: string | null;
  /** JSON: whose microphone each audio track carries (`TrackOwner | null` each, in file order); null when unknown. */
  audio_track_owners: string | null;
  /** A composite's tracks recording; null for other kinds. */
  source_recording_id: string | null;
  /** JSON: a tracks recording's tracks (`RecordedTrack[]`); null otherwise. */
  tracks: string | null;
  /** The breakout room a recording was made in; null for the main room's. */
  breakout_room_id: string | null;
}

/** SQL access to the recordings table. */
export class RecordingsRepo {
  private readonly insertStmt;
  private readonly listStmt;
  private readonly byId;
  private readonly updateStmt;
  private readonly processingStmt;
  private readonly inBreakoutRoomsStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO recordings (id, meeting_id, kind, status, duration_seconds,
      file_name, content_type, size_bytes, created_at, ready_at, failure_reason, audio_track_owners, source_recording_id, tracks,
      breakout_room_id)
      VALUES (@id, @meeting_id, @kind, @status, @duration_seconds, @file_name, @content_type, @size_bytes,
      @created_at, @ready_at, @failure_reason, @audio_track_owners, @source_recording_id, @tracks, @breakout_room_id)`);
    this.listStmt = db.prepare<[string, string, number], RecordingRow>(
      'SELECT * FROM recordings WHERE meeting_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    );
    this.byId = db.prepare<[string], RecordingRow>('SELECT * FROM recordings WHERE id = ?');
    this.updateStmt = db.prepare(`UPDATE recordings SET status = @status, duration_seconds = @duration_seconds,
      file_name = @file_name, content_type = @content_type, size_bytes = @size_bytes, ready_at = @ready_at,
      failure_reason = @failure_reason, audio_track_owners = @audio_track_owners, tracks = @tracks WHERE id = @id`);
    this.processingStmt = db.prepare<[], RecordingRow>("SELECT * FROM recordings WHERE status = 'processing' ORDER BY id");
    this.inBreakoutRoomsStmt = db.prepare<[string], { id: string; breakout_room_id: string }>(
      'SELECT id, breakout_room_id FROM recordings WHERE meeting_id = ? AND breakout_room_id IS NOT NULL ORDER BY created_at, id',
    );
  }

  /** Recordings still marked processing. */
  processing(): RecordingRow[] {
    return this.processingStmt.all();
  }

  insert(row: RecordingRow): void {
    this.insertStmt.run(row);
  }

  update(row: RecordingRow): void {
    this.updateStmt.run(row);
  }

  list(meetingId: string, before: string | null, limit: number): RecordingRow[] {
    return this.listStmt.all(meetingId, before ?? '~', limit);
  }

  /** The ids of the recordings made in a meeting's breakout rooms, with their room, oldest first. */
  inBreakoutRooms(meetingId: string): { id: string; breakout_room_id: string }[] {
    return this.inBreakoutRoomsStmt.all(meetingId);
  }

  findById(id: string): RecordingRow | undefined {
    return this.byId.get(id);
  }
}
