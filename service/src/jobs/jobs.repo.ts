import type { Db } from '../db/connection';

/** Where a job stands. */
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed';

/** One durable background job, as stored; `payload` is JSON. */
export interface JobRow {
  id: string;
  kind: string;
  payload: string;
  status: JobStatus;
  attempt_count: number;
  next_run_at: number | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
}

/** SQL access to the jobs table. */
export class JobsRepo {
  private readonly insertStmt;
  private readonly claimStmt;
  private readonly expireLeasesStmt;
  private readonly releaseAllStmt;
  private readonly finishStmt;
  private readonly byId;
  private readonly nextDueStmt;
  private readonly listStmt;
  private readonly retryStmt;
  private readonly latestTranscribeStmt;
  private readonly latestSummarizeStmt;
  private readonly breakoutTranscribeStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO jobs (id, kind, payload, status, attempt_count, next_run_at, lease_until,
      last_error, created_at, completed_at) VALUES (@id, @kind, @payload, @status, @attempt_count, @next_run_at,
      @lease_until, @last_error, @created_at, @completed_at)`);
    this.claimStmt = db.prepare<[number, number, number], JobRow>(
      `UPDATE jobs SET status = 'running', lease_until = ? WHERE id IN (SELECT id FROM jobs
       WHERE status = 'pending' AND next_run_at <= ? ORDER BY next_run_at LIMIT ?) RETURNING *`,
    );
    this.expireLeasesStmt = db.prepare(
      "UPDATE jobs SET status = 'pending', lease_until = NULL WHERE status = 'running' AND lease_until <= ?",
    );
    this.releaseAllStmt = db.prepare("UPDATE jobs SET status = 'pending', lease_until = NULL, next_run_at = ? WHERE status = 'running'");
    this.finishStmt = db.prepare(`UPDATE jobs SET status = @status, attempt_count = attempt_count + 1, next_run_at = @next_run_at,
      lease_until = NULL, last_error = @last_error, completed_at = @completed_at WHERE id = @id`);
    this.byId = db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?');
    this.listStmt = db.prepare<[string | null, string | null, number], JobRow>(
      'SELECT * FROM jobs WHERE (? IS NULL OR status = ?) ORDER BY created_at DESC, id DESC LIMIT ?',
    );
    this.retryStmt = db.prepare(`UPDATE jobs SET status = 'pending', attempt_count = 0, next_run_at = ?, completed_at = NULL
      WHERE id = ? AND status = 'failed'`);
    // The expressions and the kind match the partial indexes of migration 0020, so these are index lookups.
    this.latestTranscribeStmt = db.prepare<[string], JobRow>(`SELECT * FROM jobs WHERE kind = 'transcribe'
      AND json_extract(payload, '$.recording_id') IN (SELECT id FROM recordings WHERE meeting_id = ? AND breakout_room_id IS NULL)
      ORDER BY created_at DESC, id DESC LIMIT 1`);
    this.latestSummarizeStmt = db.prepare<[string], JobRow>(`SELECT * FROM jobs WHERE kind = 'summarize'
      AND json_extract(payload, '$.meeting_id') = ? ORDER BY created_at DESC, id DESC LIMIT 1`);
    this.breakoutTranscribeStmt = db.prepare<[string], JobRow & { breakout_room_id: string }>(`SELECT j.*, r.breakout_room_id
      FROM jobs j JOIN recordings r ON r.id = json_extract(j.payload, '$.recording_id') WHERE j.kind = 'transcribe'
      AND json_extract(j.payload, '$.recording_id') IN (SELECT id FROM recordings WHERE meeting_id = ? AND breakout_room_id IS NOT NULL)
      ORDER BY j.created_at, j.id`);
    this.nextDueStmt = db.prepare<[], { at: number | null }>("SELECT min(next_run_at) AS at FROM jobs WHERE status = 'pending'");
  }

  insert(row: JobRow): void {
    this.insertStmt.run(row);
  }

  /** Takes up to `limit` due jobs, earliest first, until `leaseUntil`. */
  claimDue(now: number, limit: number, leaseUntil: number): JobRow[] {
    return this.claimStmt.all(leaseUntil, now, limit);
  }

  /** Makes running jobs whose lease ran out (their worker died) pending again; returns how many. */
  expireLeases(now: number): number {
    return this.expireLeasesStmt.run(now).changes;
  }

  /** After a restart: every running job becomes due again at `now`. */
  releaseAll(now: number): number {
    return this.releaseAllStmt.run(now).changes;
  }

  /** Records the end of an attempt and what comes next. */
  finish(
    id: string,
    next: { status: JobStatus; next_run_at: number | null; last_error: string | null; completed_at: string | null },
  ): void {
    this.finishStmt.run({ id, ...next });
  }

  findById(id: string): JobRow | undefined {
    return this.byId.get(id);
  }

  /** Up to `limit` jobs, newest first, only those in `status` unless it is null. */
  list(status: JobStatus | null, limit: number): JobRow[] {
    return this.listStmt.all(status, status, limit);
  }

  /** Makes a failed job pending again at `now` with no attempts counted; false when it is not failed. */
  retry(id: string, now: number): boolean {
    return this.retryStmt.run(now, id).changes === 1;
  }

  /** The newest `transcribe` job of any recording of a meeting's main room, or undefined when none was queued. */
  latestTranscribeOf(meetingId: string): JobRow | undefined {
    return this.latestTranscribeStmt.get(meetingId);
  }

  /** The newest `summarize` job of a meeting, or undefined when none was queued. */
  latestSummarizeOf(meetingId: string): JobRow | undefined {
    return this.latestSummarizeStmt.get(meetingId);
  }

  /** The newest `transcribe` job of each breakout room of a meeting (of any of its recordings), by breakout room id. */
  latestTranscribeByBreakoutRoom(meetingId: string): Map<string, JobRow> {
    const latest = new Map<string, JobRow>();
    for (const { breakout_room_id: roomId, ...job } of this.breakoutTranscribeStmt.all(meetingId)) latest.set(roomId, job);
    return latest;
  }

  /** Epoch ms of the earliest pending job, or null when none waits. */
  nextDueAt(): number | null {
    return this.nextDueStmt.get()?.at ?? null;
  }
}
