import type { Db } from '../db/connection';
import type { EventType } from '../events/event-types';
import { DestinationsRepo, type StoredDestination } from '../outbox/destinations.repo';

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

/** SQL access to integrations. */
export class IntegrationsRepo extends DestinationsRepo<IntegrationRow> {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly healthStmt;
  private readonly listAllStmt;

  constructor(db: Db) {
    super(db, 'integrations', 'kind');
    this.insertStmt = db.prepare(`INSERT INTO integrations (id, organization_id, kind, events, channel, secret_encrypted,
      secret_hint, enabled, disabled_reason, failing_since, last_error, last_delivered_at, created_at, updated_at)
      VALUES (@id, @organization_id, @kind, @events, @channel, @secret_encrypted, @secret_hint, @enabled,
      @disabled_reason, @failing_since, @last_error, @last_delivered_at, @created_at, @updated_at)`);
    this.updateStmt = db.prepare(`UPDATE integrations SET events = @events, channel = @channel,
      secret_encrypted = @secret_encrypted, secret_hint = @secret_hint, enabled = @enabled,
      disabled_reason = @disabled_reason, failing_since = @failing_since, last_error = @last_error,
      last_delivered_at = @last_delivered_at, updated_at = @updated_at WHERE id = @id`);
    this.healthStmt = db.prepare(`UPDATE integrations SET enabled = @enabled, disabled_reason = @disabled_reason,
      failing_since = @failing_since, last_error = @last_error,
      last_delivered_at = coalesce(@last_delivered_at, last_delivered_at), updated_at = coalesce(@updated_at, updated_at)
      WHERE id = @id`);
    this.listAllStmt = db.prepare<[], StoredDestination<IntegrationRow>>('SELECT * FROM integrations ORDER BY id');
  }

  insert(row: IntegrationRow): void {
    this.insertStmt.run(this.serialize(row));
  }

  update(row: IntegrationRow): void {
    this.updateStmt.run(this.serialize(row));
  }

  /** Stores the delivery health columns; null `lastDeliveredAt` or `updatedAt` keeps the stored value. */
  updateHealth(
    id: string,
    health: Pick<IntegrationRow, 'enabled' | 'disabled_reason' | 'failing_since' | 'last_error'>,
    times: { lastDeliveredAt: string | null; updatedAt: string | null },
  ): void {
    this.healthStmt.run({ ...health, id, last_delivered_at: times.lastDeliveredAt, updated_at: times.updatedAt });
  }

  /** Every integration of every organization, for the operator's CLI. */
  listAll(): IntegrationRow[] {
    return this.listAllStmt.all().map((r) => this.parse(r)!);
  }
}
