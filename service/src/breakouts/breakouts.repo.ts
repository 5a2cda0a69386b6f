import type { Db } from '../db/connection';
import type { BreakoutStatus } from './breakouts.protocol';

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

/** SQL access to breakout rooms and who is assigned to them. */
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
}
