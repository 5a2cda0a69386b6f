import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/connection';
import type { EventType } from '../events/event-types';
import type { DueDestination } from './fair-share';

/** Where a delivery stands: waiting (maybe for a retry), being attempted, or done. */
export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed';

/** What a delivery goes to: a webhook endpoint or a chat integration. */
export type DestinationKind = 'webhook' | 'slack' | 'teams' | 'project';

/** One event on its way to one destination, as stored. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  destination_kind: DestinationKind;
  destination_id: string;
  organization_id: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  created_at: string;
  completed_at: string | null;
}

/** One HTTP attempt of a delivery, as stored. */
export interface AttemptRow {
  id: string;
  delivery_id: string;
  number: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  next_attempt_at: string | null;
}

/** A claimed delivery with its event. */
export interface ClaimedDelivery extends DeliveryRow {
  event_type: EventType;
  payload: string;
}

/** SQL access to deliveries and their attempts. */
export class DeliveriesRepo {
  private readonly insertStmt;
  private readonly dueDestinationsStmts = new Map<number, Statement<{ now: number }, DueDestination>>();
  private readonly claimDueStmts = new Map<number, Statement<[number, string, number], ClaimedDelivery>>();
  private readonly expireLeasesStmt;
  private readonly releaseAllStmt;
  private readonly unclaimStmt;
  private readonly insertAttemptStmt;
  private readonly finishStmt;
  private readonly byId;
  private readonly listStmt;
  private readonly attemptsStmt;
  private readonly nextDueStmt;
  private readonly parkStmt;
  private readonly resumeStmt;
  private readonly deleteStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO deliveries (id, event_id, destination_kind, destination_id, organization_id,
      status, attempt_count, next_attempt_at, lease_until, created_at, completed_at) VALUES (@id, @event_id, @destination_kind,
      @destination_id, @organization_id, @status, @attempt_count, @next_attempt_at, @lease_until, @created_at, @completed_at)`);
    this.expireLeasesStmt = db.prepare(
      "UPDATE deliveries SET status = 'pending', lease_until = NULL WHERE status = 'delivering' AND lease_until <= ?",
    );
    this.releaseAllStmt = db.prepare(
      "UPDATE deliveries SET status = 'pending', lease_until = NULL, next_attempt_at = ? WHERE status = 'delivering'",
    );
    this.unclaimStmt = db.prepare(
      "UPDATE deliveries SET status = 'pending', lease_until = NULL WHERE status = 'delivering' AND id IN (SELECT value FROM json_each(?))",
    );
    this.insertAttemptStmt = db.prepare(`INSERT INTO delivery_attempts (id, delivery_id, number, started_at, duration_ms,
      status_code, error, response_body, next_attempt_at) VALUES (@id, @delivery_id, @number, @started_at, @duration_ms,
      @status_code, @error, @response_body, @next_attempt_at)`);
    this.finishStmt = db.prepare(`UPDATE deliveries SET status = @status, attempt_count = attempt_count + 1,
      next_attempt_at = @next_attempt_at, lease_until = NULL, completed_at = @completed_at WHERE id = @id AND status = 'delivering'`);
    this.byId = db.prepare<[string], DeliveryRow & { event_type: EventType }>(
      'SELECT d.*, ev.type AS event_type FROM deliveries d JOIN events ev ON ev.id = d.event_id WHERE d.id = ?',
    );
    this.listStmt = db.prepare<[string, string, number], DeliveryRow & { event_type: EventType }>(
      `SELECT d.*, ev.type AS event_type FROM deliveries d JOIN events ev ON ev.id = d.event_id
       WHERE d.destination_id = ? AND d.id < ? ORDER BY d.id DESC LIMIT ?`,
    );
    this.attemptsStmt = db.prepare<[string], AttemptRow>(
      'SELECT * FROM delivery_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, number',
    );
    this.parkStmt = db.prepare("UPDATE deliveries SET next_attempt_at = NULL WHERE destination_id = ? AND status = 'pending'");
    this.resumeStmt = db.prepare(
      "UPDATE deliveries SET next_attempt_at = ? WHERE destination_id = ? AND status = 'pending' AND next_attempt_at IS NULL",
    );
    this.deleteStmt = db.prepare('DELETE FROM deliveries WHERE destination_id = ?');
    this.nextDueStmt = db.prepare<[], { at: number | null }>("SELECT min(next_attempt_at) AS at FROM deliveries WHERE status = 'pending'");
  }

  insert(row: DeliveryRow): void {
    this.insertStmt.run(row);
  }

  /** The destinations with deliveries due at `now`, the longest waiting first, each with how many are due (counted up to `most`). */
  dueDestinations(now: number, most: number): DueDestination[] {
    // A skip scan over the (destination_id, next_attempt_at) index of pending deliveries: one index seek per
    // destination instead of reading every due row, so a backlog of thousands costs the same as a handful.
    const stmt = withLimit(this.dueDestinationsStmts, most, (limit) =>
      this.db.prepare<{ now: number }, DueDestination>(
        `WITH RECURSIVE destinations (dest) AS (
           SELECT min(destination_id) FROM deliveries WHERE status = 'pending'
           UNION ALL
           SELECT (SELECT min(destination_id) FROM deliveries WHERE status = 'pending' AND destination_id > destinations.dest)
           FROM destinations WHERE destinations.dest IS NOT NULL
         ), heads AS (
           SELECT dest, (SELECT min(next_attempt_at) FROM deliveries WHERE status = 'pending' AND destination_id = dest) AS first_due
           FROM destinations WHERE dest IS NOT NULL
         )
         SELECT dest AS destination_id,
           (SELECT organization_id FROM deliveries WHERE status = 'pending' AND destination_id = dest LIMIT 1) AS organization_id,
           (SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE status = 'pending' AND destination_id = dest
             AND next_attempt_at <= @now LIMIT ${limit})) AS due
         FROM heads WHERE first_due <= @now ORDER BY first_due`,
      ),
    );
    return stmt.all({ now });
  }

  /** Takes up to `limit` of a destination's due deliveries, earliest first, for attempts until `leaseUntil`; returns them with their events. */
  claimDue(destinationId: string, now: number, limit: number, leaseUntil: number): ClaimedDelivery[] {
    const stmt = withLimit(this.claimDueStmts, limit, (literal) =>
      this.db.prepare<[number, string, number], ClaimedDelivery>(
        `UPDATE deliveries SET status = 'delivering', lease_until = ? WHERE id IN (SELECT id FROM deliveries
         WHERE destination_id = ? AND status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ${literal})
         RETURNING *, (SELECT type FROM events WHERE id = event_id) AS event_type, (SELECT payload FROM events WHERE id = event_id) AS payload`,
      ),
    );
    return stmt.all(leaseUntil, destinationId, now);
  }

  /** Makes deliveries whose lease ran out (their attempt never got recorded) pending again; returns how many. */
  expireLeases(now: number): number {
    return this.expireLeasesStmt.run(now).changes;
  }

  /** After a restart: every delivery that was being attempted becomes due again at `now`. */
  releaseAll(now: number): number {
    return this.releaseAllStmt.run(now).changes;
  }

  /** Hands claimed deliveries that were never attempted back to the schedule, due as they were. */
  unclaim(ids: string[]): void {
    if (ids.length > 0) this.unclaimStmt.run(JSON.stringify(ids));
  }

  /**
   * Records an attempt and where its delivery goes next; false (nothing written) when the delivery is no longer
   * being delivered, e.g. deleted with its endpoint while the attempt was under way.
   */
  recordAttempt(
    attempt: AttemptRow,
    next: { status: DeliveryStatus; next_attempt_at: number | null; completed_at: string | null },
  ): boolean {
    if (this.finishStmt.run({ id: attempt.delivery_id, ...next }).changes === 0) return false;
    this.insertAttemptStmt.run(attempt);
    return true;
  }

  findById(id: string): (DeliveryRow & { event_type: EventType }) | undefined {
    return this.byId.get(id);
  }

  listForDestination(destinationId: string, before: string | null, limit: number): (DeliveryRow & { event_type: EventType })[] {
    return this.listStmt.all(destinationId, before ?? '~', limit);
  }

  attemptsOf(deliveryIds: string[]): AttemptRow[] {
    return this.attemptsStmt.all(JSON.stringify(deliveryIds));
  }

  /** Deletes every delivery (and, by cascade, attempt) of a destination that is being deleted. */
  deleteForDestination(destinationId: string): void {
    this.deleteStmt.run(destinationId);
  }

  /** Takes the pending deliveries of a disabled destination out of the schedule, so the worker never scans them. */
  park(destinationId: string): void {
    this.parkStmt.run(destinationId);
  }

  /** Puts the parked deliveries of a re-enabled destination back in the schedule, due at `now`. */
  resume(destinationId: string, now: number): void {
    this.resumeStmt.run(now, destinationId);
  }

  /** Epoch ms of the earliest pending attempt, or null when nothing waits. */
  nextDueAt(): number | null {
    return this.nextDueStmt.get()?.at ?? null;
  }
}

/**
 * The statement for `limit`, prepared once per value with the limit written into the SQL: SQLite stops a
 * bound `LIMIT ?` early only at the top level, so in a subquery it reads every pending row of the
 * destination (measured at 6,000 pending: 177 µs against 14 µs for the skip scan, 136 against 67 for the claim).
 */
function withLimit<S>(cache: Map<number, S>, limit: number, prepare: (literal: number) => S): S {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`a LIMIT must be a positive integer, got ${limit}`);
  let stmt = cache.get(limit);
  if (stmt === undefined) {
    stmt = prepare(limit);
    cache.set(limit, stmt);
  }
  return stmt;
}
