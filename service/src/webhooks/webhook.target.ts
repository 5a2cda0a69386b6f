import { signDelivery } from '@svc/connectors';
import type { ClaimedDelivery } from '../outbox/deliveries.repo';
import { failedBeforeSending, healthChanged, type DeliveryTarget, type DestinationHealth, type SendResult } from '../outbox/destination';
import type { Sender } from '../outbox/http-sender';
import { isoAt } from '../shared/clock';
import type { SecretBox } from '../shared/secret-box';
import type { DeliverySettings, WebhookEndpointsRepo } from './webhook-endpoints.repo';

const MAX_OPENED_SECRETS = 10_000;

/** Webhook endpoints as a delivery destination: each attempt is signed afresh and POSTed. */
export class WebhookTarget implements DeliveryTarget {
  // Sealed secret -> secret: a changed secret is a new sealed string, so entries never go stale.
  private readonly openedSecrets = new Map<string, string>();
  // The settings of the endpoints of the last claim, read in its transaction; its attempts start as soon as it commits.
  private prepared = new Map<string, DeliverySettings | undefined>();

  constructor(
    private readonly endpoints: WebhookEndpointsRepo,
    private readonly secrets: SecretBox,
    private readonly send: Sender,
  ) {}

  prepare(claimed: ClaimedDelivery[]): void {
    this.prepared = new Map();
    for (const { destination_kind: kind, destination_id: id } of claimed) {
      if (kind === 'webhook' && !this.prepared.has(id)) this.prepared.set(id, this.endpoints.forDelivery(id));
    }
  }

  async attempt(delivery: ClaimedDelivery, now: number): Promise<SendResult> {
    const id = delivery.destination_id;
    const endpoint = this.prepared.has(id) ? this.prepared.get(id) : this.endpoints.forDelivery(id);
    if (!endpoint) return failedBeforeSending('the endpoint was deleted', true);
    const headers = signDelivery({
      secrets: this.secretsOf(endpoint, now),
      eventId: delivery.event_id,
      eventType: delivery.event_type,
      deliveryId: delivery.id,
      timestamp: Math.floor(now / 1000),
      rawBody: delivery.payload,
    });
    const custom = endpoint.headers_encrypted ? (JSON.parse(this.open(endpoint.headers_encrypted)) as Record<string, string>) : {};
    // The signature headers come last, so no custom header can stand in for them (names are also refused at write time).
    const result = await this.send(endpoint.url, { ...custom, ...headers }, delivery.payload);
    return {
      ...result,
      permanentFailure: result.statusCode === 410 ? 'the endpoint answered 410 Gone' : null,
      // Retry-After is a promise only on 429 and 503.
      retryAfterMs: result.statusCode === 429 || result.statusCode === 503 ? result.retryAfterMs : null,
    };
  }

  health(destinationId: string): DestinationHealth | undefined {
    return this.endpoints.health(destinationId);
  }

  saveHealth(destinationId: string, health: DestinationHealth, outcome: { previous: DestinationHealth; now: number }): void {
    if (!healthChanged(outcome.previous, health)) return;
    const updatedAt = outcome.previous.enabled !== health.enabled ? isoAt(outcome.now) : null;
    this.endpoints.updateHealth(destinationId, { ...health, enabled: health.enabled ? 1 : 0 }, updatedAt);
  }

  /** The current secret, and the previous one while its 24 h overlap lasts. */
  private secretsOf(endpoint: DeliverySettings, now: number): string[] {
    const secrets = [this.open(endpoint.secret_encrypted)];
    if (endpoint.previous_secret_encrypted && (endpoint.previous_secret_expires_at ?? 0) > now) {
      secrets.push(this.open(endpoint.previous_secret_encrypted));
    }
    return secrets;
  }

  private open(sealed: string): string {
    let secret = this.openedSecrets.get(sealed);
    if (secret === undefined) {
      if (this.openedSecrets.size >= MAX_OPENED_SECRETS) this.openedSecrets.clear();
      secret = this.secrets.open(sealed);
      this.openedSecrets.set(sealed, secret);
    }
    return secret;
  }
}
