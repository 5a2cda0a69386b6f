import type { Db } from '../db/connection';

/** Lifecycle of a meeting: scheduled -> live -> ended, or scheduled -> cancelled. */
export type MeetingStatus = 'scheduled' | 'live' | 'ended' | 'cancelled';

/** A meeting or webinar as stored. */
export interface MeetingRow {
  id: string;
  organization_id: string;
  code: string;
  title: string;
  kind: 'meeting' | 'webinar';
  slug: string | null;
  scheduled_at: string;
  scheduled_at_ms: number;
  duration_minutes: number;
  /** IANA name, or null when the meeting was created without one. */
  time_zone: string | null;
  waiting_room: 0 | 1;
  transcription_auto: 0 | 1;
  /** The layout of the recording's composite. */
  recording_layout: 'active_speaker' | 'grid';
  /** Live captions are on from the start. */
  captions: 0 | 1;
  /** Guests may join this many minutes before scheduled_at; hosts always may. */
  join_before_start_minutes: number;
  status: MeetingStatus;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  ended_at: string | null;
}

/** A live meeting nobody is in, with when the last person left (or when it started, if nobody ever stayed). */
export type IdleMeetingRow = MeetingRow & { emptied_at: string };

/** Columns a meeting update may change. */
export type MeetingChanges = Partial<
  Pick<
    MeetingRow,
    | 'title'
    | 'scheduled_at'
    | 'scheduled_at_ms'
    | 'duration_minutes'
    | 'time_zone'
    | 'waiting_room'
    | 'transcription_auto'
    | 'recording_layout'
    | 'captions'
    | 'join_before_start_minutes'
    | 'status'
    | 'started_at'
    | 'ended_at'
  >
> & { updated_at: string };

/** SQL access to the meetings table; every read is confined to the given organizations. */
export class MeetingsRepo {
  private readonly insertStmt;
  private readonly byId;
  private readonly byIdInOrg;
  private readonly byIdAnywhere;
  private readonly byCode;
  private readonly byCodeAnywhere;
  private readonly idleLiveStmt;
  private readonly byCodeInOrg;
  private readonly bySlug;
  private readonly listStmt;
  private readonly listByStatusStmt;
  /** One prepared UPDATE per set of changed columns (a handful exist). */
  private readonly updateStatements = new Map<string, ReturnType<Db['prepare']>>();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO meetings (id, organization_id, code, title, kind, slug,
      scheduled_at, scheduled_at_ms, duration_minutes, time_zone, waiting_room, transcription_auto, recording_layout, captions, join_before_start_minutes, status,
      created_at, updated_at, started_at, ended_at)
      VALUES (@id, @organization_id, @code, @title, @kind, @slug, @scheduled_at, @scheduled_at_ms,
      @duration_minutes, @time_zone, @waiting_room, @transcription_auto, @recording_layout, @captions, @join_before_start_minutes, @status, @created_at, @updated_at,
      @started_at, @ended_at)`);
    const inOrgs = 'organization_id IN (SELECT value FROM json_each(?))';
    this.byId = db.prepare<[string, string], MeetingRow>(`SELECT * FROM meetings WHERE id = ? AND ${inOrgs}`);
    // Most keys reach one organization; a plain equality is cheaper than the JSON list.
    this.byIdInOrg = db.prepare<[string, string], MeetingRow>('SELECT * FROM meetings WHERE id = ? AND organization_id = ?');
    this.byCodeInOrg = db.prepare<[string, string], MeetingRow>('SELECT * FROM meetings WHERE code = ? AND organization_id = ?');
    this.byIdAnywhere = db.prepare<[string], MeetingRow>('SELECT * FROM meetings WHERE id = ?');
    this.byCodeAnywhere = db.prepare<[string], MeetingRow>('SELECT * FROM meetings WHERE code = ?');
    this.idleLiveStmt = db.prepare<[string], IdleMeetingRow>(`SELECT * FROM (SELECT m.*,
      COALESCE((SELECT MAX(p.left_at) FROM participants p WHERE p.meeting_id = m.id), m.started_at) AS emptied_at
      FROM meetings m WHERE m.status = 'live'
      AND NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = m.id AND p.left_at IS NULL)) WHERE emptied_at <= ?`);
    this.byCode = db.prepare<[string, string], MeetingRow>(`SELECT * FROM meetings WHERE code = ? AND ${inOrgs}`);
    this.bySlug = db.prepare<[string, string], MeetingRow>(`SELECT * FROM meetings WHERE slug = ? AND ${inOrgs} ORDER BY organization_id`);
    this.listStmt = db.prepare<[string, string, number], MeetingRow>(
      `SELECT * FROM meetings WHERE ${inOrgs} AND id < ? ORDER BY id DESC LIMIT ?`,
    );
    this.listByStatusStmt = db.prepare<[string, string, string, number], MeetingRow>(
      `SELECT * FROM meetings WHERE ${inOrgs} AND status = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    );
  }

  insert(row: MeetingRow): void {
    this.insertStmt.run(row);
  }

  /** Finds by id (`mtg_...`) or join code within `orgIds`. */
  find(orgIds: string[], idOrCode: string): MeetingRow | undefined {
    const byId = idOrCode.startsWith('mtg_');
    if (orgIds.length === 1) return (byId ? this.byIdInOrg : this.byCodeInOrg).get(idOrCode, orgIds[0]!);
    return (byId ? this.byId : this.byCode).get(idOrCode, JSON.stringify(orgIds));
  }

  /** Finds by id in any organization: only for work no caller asked for (events of background jobs). */
  findById(id: string): MeetingRow | undefined {
    return this.byIdAnywhere.get(id);
  }

  /** Finds by join code in any organization: for the room page, which anyone with the code may open. */
  findByCodeAnywhere(code: string): MeetingRow | undefined {
    return this.byCodeAnywhere.get(code);
  }

  /** Live meetings that nobody is in and that nobody has left since `cutoff` (ISO 8601, as stored), with when they emptied. */
  idleLive(cutoff: string): IdleMeetingRow[] {
    return this.idleLiveStmt.all(cutoff);
  }

  /** The webinars with `slug` in `orgIds`: at most one per organization. */
  findBySlug(orgIds: string[], slug: string): MeetingRow[] {
    return this.bySlug.all(slug, JSON.stringify(orgIds));
  }

  /** Up to `limit` meetings with ids below `before` (all when null), newest first. */
  list(orgIds: string[], opts: { status?: MeetingStatus; before: string | null; limit: number }): MeetingRow[] {
    const before = opts.before ?? '~';
    const orgs = JSON.stringify(orgIds);
    return opts.status ? this.listByStatusStmt.all(orgs, opts.status, before, opts.limit) : this.listStmt.all(orgs, before, opts.limit);
  }

  /** Applies `changes` when the meeting is still in `expectedStatus`; false when it was not. */
  update(id: string, expectedStatus: MeetingStatus, changes: MeetingChanges): boolean {
    const columns = Object.keys(changes).sort();
    const shape = columns.join(',');
    let stmt = this.updateStatements.get(shape);
    if (!stmt) {
      stmt = this.db.prepare(`UPDATE meetings SET ${columns.map((c) => `${c} = @${c}`).join(', ')}
        WHERE id = @id AND status = @expectedStatus`);
      this.updateStatements.set(shape, stmt);
    }
    return stmt.run({ ...changes, id, expectedStatus }).changes === 1;
  }
}
