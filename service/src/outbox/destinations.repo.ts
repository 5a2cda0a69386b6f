import type { Db } from '../db/connection';
import type { EventType } from '../events/event-types';
import type { DestinationKind } from './deliveries.repo';
import type { DestinationHealth } from './destination';

/** The columns every delivery destination (a webhook endpoint, a chat integration) has. */
export interface DestinationRow {
  id: string;
  organization_id: string;
  events: EventType[];
  enabled: 0 | 1;
  disabled_reason: string | null;
  /** Epoch ms of the first failed attempt since the last success. */
  failing_since: number | null;
  last_error: string | null;
}

/** A destination subscribed to an event type. */
export interface Subscriber {
  id: string;
  kind: DestinationKind;
}

/** A destination row as stored: `events` as JSON text. */
export type StoredDestination<Row> = Omit<Row, 'events'> & { events: string };

/** SQL that the tables of delivery destinations share: lookups within organizations, pages, subscribers, counts, deletion; `events` is stored as JSON. */
export abstract class DestinationsRepo<Row extends DestinationRow> {
  private readonly byId;
  private readonly byIdAnywhere;
  private readonly readHealthStmt;
  private readonly listStmt;
  private readonly subscribedStmt;
  private readonly countStmt;
  private readonly deleteStmt;

  /** `kindColumn` is the SQL expression that gives a row's destination kind. */
  protected constructor(db: Db, table: 'webhook_endpoints' | 'integrations', kindColumn: string) {
    const inOrgs = 'organization_id IN (SELECT value FROM json_each(?))';
    this.byId = db.prepare<[string, string], StoredDestination<Row>>(`SELECT * FROM ${table} WHERE id = ? AND ${inOrgs}`);
    this.byIdAnywhere = db.prepare<[string], StoredDestination<Row>>(`SELECT * FROM ${table} WHERE id = ?`);
    this.readHealthStmt = db.prepare<[string], Pick<DestinationRow, 'enabled' | 'disabled_reason' | 'failing_since' | 'last_error'>>(
      `SELECT enabled, disabled_reason, failing_since, last_error FROM ${table} WHERE id = ?`,
    );
    this.listStmt = db.prepare<[string, string, number], StoredDestination<Row>>(
      `SELECT * FROM ${table} WHERE ${inOrgs} AND id < ? ORDER BY id DESC LIMIT ?`,
    );
    this.subscribedStmt = db.prepare<[string, string], Subscriber>(`SELECT id, ${kindColumn} AS kind FROM ${table}
      WHERE organization_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?)`);
    this.countStmt = db.prepare<[string], number>(`SELECT count(*) FROM ${table} WHERE organization_id = ?`).pluck();
    this.deleteStmt = db.prepare(`DELETE FROM ${table} WHERE id = ?`);
  }

  /** The destination `id` if it belongs to one of `orgIds`. */
  find(orgIds: string[], id: string): Row | undefined {
    return this.parse(this.byId.get(id, JSON.stringify(orgIds)));
  }

  /** Finds by id in any organization: for the delivery worker and the operator's CLI, which act for no caller. */
  findAny(id: string): Row | undefined {
    return this.parse(this.byIdAnywhere.get(id));
  }

  /** The delivery health of the destination `id` in any organization (only the columns the delivery worker needs). */
  health(id: string): DestinationHealth | undefined {
    const row = this.readHealthStmt.get(id);
    return (
      row && {
        enabled: row.enabled === 1,
        disabled_reason: row.disabled_reason,
        failing_since: row.failing_since,
        last_error: row.last_error,
      }
    );
  }

  /** Up to `limit` destinations of `orgIds` with ids below `before` (all when null), newest first. */
  list(orgIds: string[], before: string | null, limit: number): Row[] {
    return this.listStmt.all(JSON.stringify(orgIds), before ?? '~', limit).map((r) => this.parse(r)!);
  }

  /** The enabled destinations of an organization that subscribe to `type`. */
  subscribedTo(organizationId: string, type: EventType): Subscriber[] {
    return this.subscribedStmt.all(organizationId, type);
  }

  /** How many destinations an organization has. */
  countIn(organizationId: string): number {
    return this.countStmt.get(organizationId)!;
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  /** The row as stored: `events` as JSON text. */
  protected serialize(row: Row): StoredDestination<Row> {
    return { ...row, events: JSON.stringify(row.events) };
  }

  /** The stored row with `events` parsed. */
  protected parse(row: StoredDestination<Row> | undefined): Row | undefined {
    return row && ({ ...row, events: JSON.parse(row.events) as EventType[] } as unknown as Row);
  }
}
