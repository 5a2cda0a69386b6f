import type { Db } from '../db/connection';
import type { EventType } from './event-types';

/** An event as stored; `payload` is the JSON envelope sent everywhere, frozen at emit time. */
export interface EventRow {
  id: string;
  organization_id: string;
  type: EventType;
  slug: string | null;
  payload: string;
  created_at: string;
}

/** Which events of one organization a feed query wants. */
export interface EventFilter {
  organizationId: string;
  types: EventType[];
  slug?: string;
}

type Direction = 'after' | 'latest';

/** SQL access to the events table. Every query walks an index in id order and stops after `limit` rows. */
export class EventsRepo {
  private readonly insertStmt;
  private readonly byId;
  private readonly statements = new Map<string, ReturnType<Db['prepare']>>();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO events (id, organization_id, type, slug, payload, created_at)
      VALUES (@id, @organization_id, @type, @slug, @payload, @created_at)`);
    this.byId = db.prepare<[string], EventRow>('SELECT * FROM events WHERE id = ?');
  }

  insert(row: EventRow): void {
    this.insertStmt.run(row);
  }

  findById(id: string): EventRow | undefined {
    return this.byId.get(id);
  }

  /** The newest id of all events, to keep new ids above it after a restart. */
  newestId(): string | undefined {
    return this.db.prepare<[], { id: string }>('SELECT id FROM events ORDER BY id DESC LIMIT 1').get()?.id;
  }

  /** Up to `limit` events strictly after `since`, oldest first. */
  after(filter: EventFilter, since: string, limit: number): EventRow[] {
    return this.query('after', filter, since, limit);
  }

  /** The newest `limit` events, newest first. */
  latest(filter: EventFilter, limit: number): EventRow[] {
    return this.query('latest', filter, null, limit);
  }

  private query(direction: Direction, filter: EventFilter, since: string | null, limit: number): EventRow[] {
    const single = filter.types.length === 1;
    const shape = `${direction}:${filter.slug !== undefined ? 'slug' : single ? 'type' : 'types'}`;
    let stmt = this.statements.get(shape);
    if (!stmt) {
      stmt = this.db.prepare(sqlFor(direction, filter.slug !== undefined ? 'slug' : single ? 'type' : 'types'));
      this.statements.set(shape, stmt);
    }
    return stmt.all({
      org: filter.organizationId,
      type: filter.types[0],
      types: JSON.stringify(filter.types),
      slug: filter.slug,
      since,
      limit,
    }) as EventRow[];
  }
}

function sqlFor(direction: Direction, by: 'slug' | 'type' | 'types'): string {
  // `+type` keeps the planner on the (organization_id, id) index, so it walks ids in order and
  // filters types as it goes instead of collecting every matching row and sorting them.
  const match = {
    slug: 'slug = @slug AND type IN (SELECT value FROM json_each(@types))',
    type: 'type = @type',
    types: '+type IN (SELECT value FROM json_each(@types))',
  }[by];
  const range = direction === 'after' ? 'AND id > @since ORDER BY id ASC' : 'ORDER BY id DESC';
  return `SELECT * FROM events WHERE organization_id = @org AND ${match} ${range} LIMIT @limit`;
}
