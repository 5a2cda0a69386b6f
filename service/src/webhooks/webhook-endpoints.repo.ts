import type { Db } from '../db/connection';
import type { EventType } from '../events/event-types';
import { DestinationsRepo } from '../outbox/destinations.repo';

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
  /** The custom delivery headers, a sealed JSON object of name -> value; null when there are none. */
  headers_encrypted: string | null;
  /** The custom headers' names, lower-cased and comma-separated ('' for none). */
  header_names: string;
  /** Epoch ms of the first failed attempt since the last success. */
  failing_since: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** What an attempt needs of its endpoint: where to send, what to sign with, which headers to add. */
export type DeliverySettings = Pick<
  WebhookEndpointRow,
  'url' | 'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_expires_at' | 'headers_encrypted'
>;

/** SQL access to webhook_endpoints. */
export class WebhookEndpointsRepo extends DestinationsRepo<WebhookEndpointRow> {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly healthStmt;
  private readonly deliverySettingsStmt;

  constructor(db: Db) {
    super(db, 'webhook_endpoints', "'webhook'");
    const columns = `organization_id = @organization_id, url = @url, description = @description, events = @events,
      enabled = @enabled, disabled_reason = @disabled_reason, secret_encrypted = @secret_encrypted,
      previous_secret_encrypted = @previous_secret_encrypted, previous_secret_expires_at = @previous_secret_expires_at,
      headers_encrypted = @headers_encrypted, header_names = @header_names, failing_since = @failing_since, last_error = @last_error, updated_at = @updated_at`;
    this.insertStmt = db.prepare(`INSERT INTO webhook_endpoints (id, organization_id, url, description, events, enabled,
      disabled_reason, secret_encrypted, previous_secret_encrypted, previous_secret_expires_at, headers_encrypted, header_names,
      failing_since, last_error, created_at, updated_at)
      VALUES (@id, @organization_id, @url, @description, @events, @enabled, @disabled_reason, @secret_encrypted,
      @previous_secret_encrypted, @previous_secret_expires_at, @headers_encrypted, @header_names, @failing_since, @last_error,
      @created_at, @updated_at)`);
    this.updateStmt = db.prepare(`UPDATE webhook_endpoints SET ${columns} WHERE id = @id`);
    this.healthStmt = db.prepare(`UPDATE webhook_endpoints SET enabled = @enabled, disabled_reason = @disabled_reason,
      failing_since = @failing_since, last_error = @last_error, updated_at = coalesce(@updated_at, updated_at) WHERE id = @id`);
    this.deliverySettingsStmt = db.prepare<[string], DeliverySettings>(`SELECT url, secret_encrypted, previous_secret_encrypted,
      previous_secret_expires_at, headers_encrypted FROM webhook_endpoints WHERE id = ?`);
  }

  /** The endpoint's delivery settings in any organization: for the delivery worker, which reads them on every attempt. */
  forDelivery(id: string): DeliverySettings | undefined {
    return this.deliverySettingsStmt.get(id);
  }

  insert(row: WebhookEndpointRow): void {
    this.insertStmt.run(this.serialize(row));
  }

  update(row: WebhookEndpointRow): void {
    this.updateStmt.run(this.serialize(row));
  }

  /** Stores the delivery health columns; `updatedAt` null keeps updated_at. */
  updateHealth(
    id: string,
    health: Pick<WebhookEndpointRow, 'enabled' | 'disabled_reason' | 'failing_since' | 'last_error'>,
    updatedAt: string | null,
  ): void {
    this.healthStmt.run({ ...health, id, updated_at: updatedAt });
  }
}
