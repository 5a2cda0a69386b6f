import type { Db } from '../db/connection';
import type { EventType } from '../events/event-types';

/** A webhook endpoint as stored; its secrets are sealed by the SecretBox. */
export interface WebhookEndpointRow {
  id: string;
  organization_id: string;
  url: string;
  description: string;
  events: EventType[];
  enabled: 0 | 1;
  disabled_reason: string | null;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  /** Epoch ms until which the previous secret still signs deliveries. */
  previous_secret_expires_at: number | null;
  /** Epoch ms of the first failed attempt since the last success. */
  failing_since: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

type Stored = Omit<WebhookEndpointRow, 'events'> & { events: string };

/** SQL access to webhook_endpoints. */
export class WebhookEndpointsRepo {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly healthStmt;
  private readonly byId;
  private readonly byIdAnywhere;
  private readonly listStmt;
  private readonly subscribedStmt;

  private readonly countStmt;

  constructor(db: Db) {
    this.countStmt = db.prepare<[string], number>('SELECT count(*) FROM webhook_endpoints WHERE organization_id = ?').pluck();
    const columns = `organization_id = @organization_id, url = @url, description = @description, events = @events,
      enabled = @enabled, disabled_reason = @disabled_reason, secret_encrypted = @secret_encrypted,
      previous_secret_encrypted = @previous_secret_encrypted, previous_secret_expires_at = @previous_secret_expires_at,
      failing_since = @failing_since, last_error = @last_error, updated_at = @updated_at`;
    this.insertStmt = db.prepare(`INSERT INTO webhook_endpoints (id, organization_id, url, description, events, enabled,
      disabled_reason, secret_encrypted, previous_secret_encrypted, previous_secret_expires_at, failing_since, last_error,
      created_at, updated_at)
      VALUES (@id, @organization_id, @url, @description, @events, @enabled, @disabled_reason, @secret_encrypted,
      @previous_secret_encrypted, @previous_secret_expires_at, @failing_since, @last_error, @created_at, @updated_at)`);
    this.updateStmt = db.prepare(`UPDATE webhook_endpoints SET ${columns} WHERE id = @id`);
    this.deleteStmt = db.prepare('DELETE FROM webhook_endpoints WHERE id = ?');
    this.healthStmt = db.prepare(`UPDATE webhook_endpoints SET enabled = @enabled, disabled_reason = @disabled_reason,
      failing_since = @failing_since, last_error = @last_error, updated_at = coalesce(@updated_at, updated_at) WHERE id = @id`);
    const inOrgs = 'organization_id IN (SELECT value FROM json_each(?))';
    this.byId = db.prepare<[string, string], Stored>(`SELECT * FROM webhook_endpoints WHERE id = ? AND ${inOrgs}`);
    this.byIdAnywhere = db.prepare<[string], Stored>('SELECT * FROM webhook_endpoints WHERE id = ?');
    this.listStmt = db.prepare<[string, string, number], Stored>(
      `SELECT * FROM webhook_endpoints WHERE ${inOrgs} AND id < ? ORDER BY id DESC LIMIT ?`,
    );
    this.subscribedStmt = db.prepare<[string, string], { id: string }>(`SELECT id FROM webhook_endpoints
      WHERE organization_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?)`);
  }

  /** How many endpoints an organization has. */
  countIn(organizationId: string): number {
    return this.countStmt.get(organizationId)!;
  }

  insert(row: WebhookEndpointRow): void {
    this.insertStmt.run(serialize(row));
  }

  update(row: WebhookEndpointRow): void {
    this.updateStmt.run(serialize(row));
  }

  /** Stores the delivery health columns; `updatedAt` null keeps updated_at. */
  updateHealth(
    id: string,
    health: Pick<WebhookEndpointRow, 'enabled' | 'disabled_reason' | 'failing_since' | 'last_error'>,
    updatedAt: string | null,
  ): void {
    this.healthStmt.run({ ...health, id, updated_at: updatedAt });
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  find(orgIds: string[], id: string): WebhookEndpointRow | undefined {
    return parse(this.byId.get(id, JSON.stringify(orgIds)));
  }

  /** Finds by id in any organization: only for the delivery worker, which acts for no caller. */
  findAny(id: string): WebhookEndpointRow | undefined {
    return parse(this.byIdAnywhere.get(id));
  }

  list(orgIds: string[], before: string | null, limit: number): WebhookEndpointRow[] {
    return this.listStmt.all(JSON.stringify(orgIds), before ?? '~', limit).map((r) => parse(r)!);
  }

  /** Ids of the enabled endpoints of an organization that subscribe to `type`. */
  subscribedTo(organizationId: string, type: EventType): string[] {
    return this.subscribedStmt.all(organizationId, type).map((r) => r.id);
  }
}

function serialize(row: WebhookEndpointRow): Stored {
  return { ...row, events: JSON.stringify(row.events) };
}

function parse(row: Stored | undefined): WebhookEndpointRow | undefined {
  return row && { ...row, events: JSON.parse(row.events) as EventType[] };
}
