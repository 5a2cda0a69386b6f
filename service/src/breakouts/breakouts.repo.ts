import type { Db } from '../db/connection';
import type { BreakoutStatus, BreakoutTranscriptStatus } from './breakouts.protocol';

/** A breakout_rooms row. */
export interface BreakoutRoomRow {
  id: string;
  meeting_id: string;
  name: string;
  position: number;
  status: BreakoutStatus;
  created_at: string;
  opened_at: string | null;
  closes_at: string | null;
  closed_at: string | null;
  timer_ends_at: string | null;
}

/** A breakout_assignments row. */
export interface BreakoutAssignmentRow {
  breakout_room_id: string;
  identity: string;
  participant_id: string;
  name: string;
}

/** What a meeting's breakout room produced: its recordings (oldest first) and where its transcript stands (null: none asked for). */
export interface BreakoutResults {
  recordingIds: string[];
  transcript: BreakoutTranscriptStatus | null;
}

/** SQL access to breakout rooms and who is assigned to them (and what they produced: recordings, transcripts). */
export class BreakoutsRepo {
  private readonly insertStmt;
  private readonly currentStmt;
  private readonly allStmt;
  private readonly deleteDraftAssignmentsStmt;
  private readonly deleteDraftsStmt;
  private readonly assignmentsStmt;
  private readonly unassignStmt;
  private readonly assignStmt;
  private readonly setStatusStmt;
  private readonly setTimerStmt;
  private readonly dueStmt;
  private readonly recordingsStmt;
  private readonly transcriptsStmt;
  private readonly transcribeJobsStmt;

  constructor(db: Db) {
    this.insertStmt =
      db.prepare(`INSERT INTO breakout_rooms (id, meeting_id, name, position, status, created_at, opened_at, closes_at, closed_at, timer_ends_at)
      VALUES (@id, @meeting_id, @name, @position, @status, @created_at, @opened_at, @closes_at, @closed_at, @timer_ends_at)`);
    this.currentStmt = db.prepare<[string], BreakoutRoomRow>(
      "SELECT * FROM breakout_rooms WHERE meeting_id = ? AND status != 'closed' ORDER BY position",
    );
    this.allStmt = db.prepare<[string], BreakoutRoomRow>('SELECT * FROM breakout_rooms WHERE meeting_id = ? ORDER BY id, position');
    this.deleteDraftAssignmentsStmt = db.prepare(
      "DELETE FROM breakout_assignments WHERE breakout_room_id IN (SELECT id FROM breakout_rooms WHERE meeting_id = ? AND status = 'draft')",
    );
    this.deleteDraftsStmt = db.prepare("DELETE FROM breakout_rooms WHERE meeting_id = ? AND status = 'draft'");
    this.assignmentsStmt = db.prepare<[string], BreakoutAssignmentRow>(
      'SELECT a.* FROM breakout_assignments a JOIN breakout_rooms r ON r.id = a.breakout_room_id WHERE r.meeting_id = ? ORDER BY a.name, a.identity',
    );
    this.unassignStmt = db.prepare(
      "DELETE FROM breakout_assignments WHERE identity = ? AND breakout_room_id IN (SELECT id FROM breakout_rooms WHERE meeting_id = ? AND status != 'closed')",
    );
    this.assignStmt = db.prepare(
      'INSERT INTO breakout_assignments (breakout_room_id, identity, participant_id, name) VALUES (@breakout_room_id, @identity, @participant_id, @name)',
    );
    this.setStatusStmt = db.prepare(`UPDATE breakout_rooms SET status = @status, opened_at = coalesce(@opened_at, opened_at),
      closes_at = @closes_at, closed_at = @closed_at WHERE meeting_id = @meeting_id AND status != 'closed'`);
    this.setTimerStmt = db.prepare("UPDATE breakout_rooms SET timer_ends_at = ? WHERE meeting_id = ? AND status != 'closed'");
    this.dueStmt = db.prepare<[string, string], { meeting_id: string }>(
      `SELECT DISTINCT meeting_id FROM breakout_rooms
       WHERE (status = 'closing' AND closes_at <= ?) OR (status = 'open' AND timer_ends_at IS NOT NULL AND timer_ends_at <= ?)`,
    );
    this.recordingsStmt = db.prepare<[string], { id: string; breakout_room_id: string }>(
      'SELECT id, breakout_room_id FROM recordings WHERE meeting_id = ? AND breakout_room_id IS NOT NULL ORDER BY created_at, id',
    );
    this.transcriptsStmt = db.prepare<[string], { breakout_room_id: string; status: BreakoutTranscriptStatus }>(
      'SELECT breakout_room_id, status FROM transcripts WHERE meeting_id = ? AND breakout_room_id IS NOT NULL',
    );
    // The expression and the kind match the partial index of migration 0020.
    this.transcribeJobsStmt = db.prepare<[string], { recording_id: string; status: string }>(`SELECT
        json_extract(payload, '$.recording_id') AS recording_id, status FROM jobs WHERE kind = 'transcribe'
        AND json_extract(payload, '$.recording_id') IN (SELECT id FROM recordings WHERE meeting_id = ? AND breakout_room_id IS NOT NULL)
      ORDER BY created_at, id`);
  }

  insert(row: BreakoutRoomRow): void {
    this.insertStmt.run(row);
  }

  /** The meeting's set that is not closed yet (draft, open or closing), in order. */
  current(meetingId: string): BreakoutRoomRow[] {
    return this.currentStmt.all(meetingId);
  }

  /** Every breakout room the meeting had, oldest set first. */
  all(meetingId: string): BreakoutRoomRow[] {
    return this.allStmt.all(meetingId);
  }

  /** Removes the meeting's draft rooms and their assignments. */
  deleteDrafts(meetingId: string): void {
    this.deleteDraftAssignmentsStmt.run(meetingId);
    this.deleteDraftsStmt.run(meetingId);
  }

  /** Everyone assigned in any of the meeting's breakout rooms. */
  assignments(meetingId: string): BreakoutAssignmentRow[] {
    return this.assignmentsStmt.all(meetingId);
  }

  /** Moves a person's assignment in the current set to `row` (or removes it when null). */
  assign(meetingId: string, identity: string, row: BreakoutAssignmentRow | null): void {
    this.unassignStmt.run(identity, meetingId);
    if (row) this.assignStmt.run(row);
  }

  /** Sets the status of the meeting's current set. */
  setStatus(
    meetingId: string,
    status: BreakoutStatus,
    times: { opened_at?: string; closes_at?: string | null; closed_at?: string | null } = {},
  ): void {
    this.setStatusStmt.run({
      meeting_id: meetingId,
      status,
      opened_at: times.opened_at ?? null,
      closes_at: times.closes_at ?? null,
      closed_at: times.closed_at ?? null,
    });
  }

  setTimer(meetingId: string, endsAt: string | null): void {
    this.setTimerStmt.run(endsAt, meetingId);
  }

  /** Meetings whose closing countdown is over, or whose open set's timer ran out (at `nowIso`). */
  due(nowIso: string): string[] {
    return this.dueStmt.all(nowIso, nowIso).map((row) => row.meeting_id);
  }

  /**
   * What each breakout room of the meeting produced, by breakout room id: its recordings and its transcript's state
   * (stored: its status; otherwise its newest transcribe job's: pending or running is processing, failed is failed).
   */
  results(meetingId: string): Map<string, BreakoutResults> {
    const results = new Map<string, BreakoutResults>();
    const of = (roomId: string) => results.get(roomId) ?? results.set(roomId, { recordingIds: [], transcript: null }).get(roomId)!;
    const roomOf = new Map<string, string>();
    for (const row of this.recordingsStmt.all(meetingId)) {
      roomOf.set(row.id, row.breakout_room_id);
      of(row.breakout_room_id).recordingIds.push(row.id);
    }
    for (const job of this.transcribeJobsStmt.all(meetingId)) {
      of(roomOf.get(job.recording_id)!).transcript = job.status === 'failed' ? 'failed' : job.status === 'succeeded' ? null : 'processing';
    }
    for (const row of this.transcriptsStmt.all(meetingId)) of(row.breakout_room_id).transcript = row.status;
    return results;
  }
}
