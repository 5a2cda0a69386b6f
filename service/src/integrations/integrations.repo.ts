import type { Db } from '../db/connection';
import type { EventType } from '../events/event-types';

/** Where an integration sends events: a Slack channel, a Teams webhook, or the project database's `svc_events` table. */
export type IntegrationKind = 'slack' | 'teams' | 'project';

/** A chat integration as stored; its bot token or webhook URL is sealed by the SecretBox. */
export interface IntegrationRow {
  id: string;
  organization_id: string;
  kind: IntegrationKind;
  events: EventType[];
  channel: string | null;
  secret_encrypted: string;
  secret_hint: string;
  enabled: 0 | 1;
  disabled_reason: string | null;
  failing_since: number | null;
  last_error: string | null;
  last_delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

type Stored = Omit<IntegrationRow, 'events'> & { events: string };

/** SQL access to integrations. */
export class IntegrationsRepo {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly healthStmt;
  private readonly byId;
  private readonly byIdAnywhere;
  private readonly listStmt;
  private readonly listAllStmt;
  private readonly subscribedStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO integrations (id, organization_id, kind, events, channel, secret_encrypted,
      secret_hint, enabled, disabled_reason, failing_since, last_error, last_delivered_at, created_at, updated_at)
      VALUES (@id, @organization_id, @kind, @events, @channel, @secret_encrypted, @secret_hint, @enabled,
      @disabled_reason, @failing_since, @last_error, @last_delivered_at, @created_at, @updated_at)`);
    this.updateStmt = db.prepare(`UPDATE integrations SET events = @events, channel = @channel,
      secret_encrypted = @secret_encrypted, secret_hint = @secret_hint, enabled = @enabled,
      disabled_reason = @disabled_reason, failing_since = @failing_since, last_error = @last_error,
      last_delivered_at = @last_delivered_at, updated_at = @updated_at WHERE id = @id`);
    this.deleteStmt = db.prepare('DELETE FROM integrations WHERE id = ?');
    this.healthStmt = db.prepare(`UPDATE integrations SET enabled = @enabled, disabled_reason = @disabled_reason,
      failing_since = @failing_since, last_error = @last_error,
      last_delivered_at = coalesce(@last_delivered_at, last_delivered_at), updated_at = coalesce(@updated_at, updated_at)
      WHERE id = @id`);
    const inOrgs = 'organization_id IN (SELECT value FROM json_each(?))';
    this.byId = db.prepare<[string, string], Stored>(`SELECT * FROM integrations WHERE id = ? AND ${inOrgs}`);
    this.byIdAnywhere = db.prepare<[string], Stored>('SELECT * FROM integrations WHERE id = ?');
    this.listStmt = db.prepare<[string, string, number], Stored>(
      `SELECT * FROM integrations WHERE ${inOrgs} AND id < ? ORDER BY id DESC LIMIT ?`,
    );
    this.listAllStmt = db.prepare<[], Stored>('SELECT * FROM integrations ORDER BY id');
    this.subscribedStmt = db.prepare<[string, string], { id: string; kind: IntegrationKind }>(`SELECT id, kind
      FROM integrations WHERE organization_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?)`);
  }

  insert(row: IntegrationRow): void {
    this.insertStmt.run(serialize(row));
  }

  update(row: IntegrationRow): void {
    this.updateStmt.run(serialize(row));
  }

  /** Stores the delivery health columns; null `lastDeliveredAt` or `updatedAt` keeps the stored value. */
  updateHealth(
    id: string,
    health: Pick<IntegrationRow, 'enabled' | 'disabled_reason' | 'failing_since' | 'last_error'>,
    times: { lastDeliveredAt: string | null; updatedAt: string | null },
  ): void {
    this.healthStmt.run({ ...health, id, last_delivered_at: times.lastDeliveredAt, updated_at: times.updatedAt });
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  find(orgIds: string[], id: string): IntegrationRow | undefined {
    return parse(this.byId.get(id, JSON.stringify(orgIds)));
  }

  /** Finds by id in any organization: for the delivery worker and the operator's CLI. */
  findAny(id: string): IntegrationRow | undefined {
    return parse(this.byIdAnywhere.get(id));
  }

  list(orgIds: string[], before: string | null, limit: number): IntegrationRow[] {
    return this.listStmt.all(JSON.stringify(orgIds), before ?? '~', limit).map((r) => parse(r)!);
  }

  /** Every integration of every organization, for the operator's CLI. */
  listAll(): IntegrationRow[] {
    return this.listAllStmt.all().map((r) => parse(r)!);
  }

  /** The enabled integrations of an organization that subscribe to `type`. */
  subscribedTo(organizationId: string, type: EventType): { id: string; kind: IntegrationKind }[] {
    return this.subscribedStmt.all(organizationId, type);
  }
}

function serialize(row: IntegrationRow): Stored {
  return { ...row, events: JSON.stringify(row.events) };
}

function parse(row: Stored | undefined): IntegrationRow | undefined {
  return row && { ...row, events: JSON.parse(row.events) as EventType[] };
}
