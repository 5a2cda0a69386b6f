import { newWebhookSecret } from '@svc/connectors';
import { assertCanSubscribe, type EventType } from '../events/event-types';
import type { EventRow } from '../events/events.repo';
import type { EventSubscriber } from '../events/events.service';
import { AppError } from '../shared/errors';
import type { PageRequest } from '../shared/paging';
import type { IdentityService, Principal } from '../identity/identity.service';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { SecretBox } from '../shared/secret-box';
import type { Transaction } from '../shared/transaction';
import type { DeliveriesRepo } from '../outbox/deliveries.repo';
import { deliveriesOf, deliveryView, newDelivery, queueForSubscribers, type Delivery } from '../outbox/deliveries';
import type { WebhookEndpointRow, WebhookEndpointsRepo } from './webhook-endpoints.repo';
import type { CreateEndpointInput, UpdateEndpointInput } from './webhooks.schemas';
import { webhookUrlProblem } from '../outbox/url-policy';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const FIELD_VALUE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
// Hop-by-hop and framing headers the sender owns, and headers that would let a value pass for svc's own signature.
const RESERVED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'expect',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/** Custom delivery headers with lower-cased names, or 400 naming the first bad name or value (`headers.<name>`). */
export function normalizeHeaders(input: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(input)) {
    const name = rawName.toLowerCase();
    const param = `headers.${rawName}`;
    if (!TOKEN.test(rawName)) throw AppError.invalid([{ param, message: "must be a header name (letters, digits and !#$%&'*+.^_`|~-)" }]);
    if (RESERVED_HEADERS.has(name) || name.startsWith('x-svc-')) {
      throw AppError.invalid([
        { param, message: 'is set by svc itself (framing, hop-by-hop or signature header) and cannot be configured' },
      ]);
    }
    if (name in out) throw AppError.invalid([{ param, message: 'is given twice (header names are case-insensitive)' }]);
    if (!FIELD_VALUE.test(value)) throw AppError.invalid([{ param, message: 'must be visible ASCII characters and inner spaces' }]);
    out[name] = value;
  }
  return out;
}

/** How long a rotated-out secret keeps signing deliveries. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The webhook endpoint resource; `secret` only right after create and rotate. */
export interface WebhookEndpoint {
  id: string;
  organization_id: string;
  url: string;
  description: string;
  events: EventType[];
  /** Names of the custom delivery headers; their values are never returned. */
  headers: string[];
  enabled: boolean;
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  secret?: string;
}

/** What WebhooksService works with. */
export interface WebhooksServiceDeps {
  endpoints: WebhookEndpointsRepo;
  deliveries: DeliveriesRepo;
  identity: IdentityService;
  secrets: SecretBox;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  allowInsecureUrls: boolean;
  maxEndpointsPerOrganization: number;
}

/** Webhook endpoints (the customer's receivers), and the outbox that queues one delivery per event and subscribed endpoint. */
export class WebhooksService implements EventSubscriber {
  private readonly endpoints: WebhookEndpointsRepo;
  private readonly deliveries: DeliveriesRepo;
  private readonly identity: IdentityService;
  private readonly secrets: SecretBox;
  private readonly transaction: Transaction;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;
  private readonly allowInsecureUrls: boolean;
  private readonly maxEndpointsPerOrganization: number;

  constructor(deps: WebhooksServiceDeps) {
    this.endpoints = deps.endpoints;
    this.deliveries = deps.deliveries;
    this.identity = deps.identity;
    this.secrets = deps.secrets;
    this.transaction = deps.transaction;
    this.ids = deps.ids;
    this.clock = deps.clock;
    this.allowInsecureUrls = deps.allowInsecureUrls;
    this.maxEndpointsPerOrganization = deps.maxEndpointsPerOrganization;
  }

  /** Queues a pending delivery, due now, for each enabled endpoint of the event's organization that subscribes to its type. */
  enqueue(event: EventRow): void {
    queueForSubscribers(this.endpoints, this.deliveries, this.ids, event, this.clock.now());
  }

  create(principal: Principal, input: CreateEndpointInput): WebhookEndpoint {
    this.checkUrl(input.url);
    assertCanSubscribe(principal.key.scopes, input.events);
    const org = this.identity.targetOrganization(principal, input.organization_id);
    const secret = newWebhookSecret();
    const now = isoAt(this.clock.now());
    const row: WebhookEndpointRow = {
      id: this.ids.next('whk'),
      organization_id: org.id,
      url: input.url,
      description: input.description ?? '',
      events: input.events,
      enabled: 1,
      disabled_reason: null,
      secret_encrypted: this.secrets.seal(secret),
      previous_secret_encrypted: null,
      previous_secret_expires_at: null,
      ...this.sealHeaders(input.headers ?? {}),
      failing_since: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    this.transaction(() => {
      if (this.endpoints.countIn(org.id) >= this.maxEndpointsPerOrganization) {
        throw AppError.conflict(
          `Organization ${org.id} has ${this.maxEndpointsPerOrganization} webhook endpoints, the most allowed; delete one it no longer needs`,
        );
      }
      this.endpoints.insert(row);
    });
    return { ...this.view(row), secret };
  }

  list(principal: Principal, page: PageRequest): WebhookEndpointRow[] {
    return this.endpoints.list(principal.organizationIds, page.after, page.limit + 1);
  }

  get(principal: Principal, id: string): WebhookEndpoint {
    return this.view(this.find(principal, id));
  }

  update(principal: Principal, id: string, input: UpdateEndpointInput): WebhookEndpoint {
    const row = this.find(principal, id);
    if (input.url !== undefined) this.checkUrl(input.url);
    if (input.events !== undefined) assertCanSubscribe(principal.key.scopes, input.events);
    const next: WebhookEndpointRow = {
      ...row,
      url: input.url ?? row.url,
      events: input.events ?? row.events,
      description: input.description ?? row.description,
      ...(input.headers !== undefined ? this.sealHeaders(input.headers) : {}),
      updated_at: isoAt(this.clock.now()),
    };
    if (input.enabled === true) Object.assign(next, { enabled: 1, disabled_reason: null, failing_since: null });
    if (input.enabled === false) Object.assign(next, { enabled: 0, disabled_reason: 'disabled through the API' });
    this.transaction(() => {
      this.endpoints.update(next);
      if (input.enabled === true && !row.enabled) this.deliveries.resume(row.id, this.clock.now());
      if (input.enabled === false && row.enabled) this.deliveries.park(row.id);
    });
    return this.view(next);
  }

  /** Deletes an endpoint with its deliveries and their attempts. */
  remove(principal: Principal, id: string): void {
    const endpoint = this.find(principal, id);
    this.transaction(() => {
      this.deliveries.deleteForDestination(endpoint.id);
      this.endpoints.delete(endpoint.id);
    });
  }

  /** Issues a new secret; the previous one keeps signing deliveries (alongside) for 24 h. */
  rotateSecret(principal: Principal, id: string): WebhookEndpoint {
    const row = this.find(principal, id);
    const secret = newWebhookSecret();
    const now = this.clock.now();
    const next: WebhookEndpointRow = {
      ...row,
      secret_encrypted: this.secrets.seal(secret),
      previous_secret_encrypted: row.secret_encrypted,
      previous_secret_expires_at: now + ROTATION_OVERLAP_MS,
      updated_at: isoAt(now),
    };
    this.endpoints.update(next);
    return { ...this.view(next), secret };
  }

  listDeliveries(principal: Principal, endpointId: string, page: PageRequest): (Delivery & { endpoint_id: string })[] {
    const endpoint = this.find(principal, endpointId);
    return deliveriesOf(this.deliveries, endpoint.id, page).map((d) => ({ ...d, endpoint_id: endpoint.id }));
  }

  /** Queues the delivery's event again for its endpoint, as a new delivery due now. */
  redeliver(principal: Principal, deliveryId: string): Delivery & { endpoint_id: string } {
    const original = this.deliveries.findById(deliveryId);
    const endpoint =
      original?.destination_kind === 'webhook' ? this.endpoints.find(principal.organizationIds, original.destination_id) : undefined;
    if (!original || !endpoint) throw AppError.notFound(`Delivery ${deliveryId}`);
    if (!endpoint.enabled) throw AppError.conflict(`Endpoint ${endpoint.id} is disabled; enable it first`);
    const row = newDelivery(
      this.ids,
      'webhook',
      { id: original.event_id, organization_id: endpoint.organization_id },
      endpoint.id,
      this.clock.now(),
    );
    this.deliveries.insert(row);
    return { ...deliveryView(row, original.event_type, []), endpoint_id: endpoint.id };
  }

  /** The API form of a stored endpoint. */
  view(row: WebhookEndpointRow): WebhookEndpoint {
    const overlap = row.previous_secret_expires_at !== null && row.previous_secret_expires_at > this.clock.now();
    return {
      id: row.id,
      organization_id: row.organization_id,
      url: row.url,
      description: row.description,
      events: row.events,
      headers: row.header_names === '' ? [] : row.header_names.split(','),
      enabled: row.enabled === 1,
      disabled_reason: row.disabled_reason,
      previous_secret_expires_at: overlap ? isoAt(row.previous_secret_expires_at!) : null,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  private find(principal: Principal, id: string): WebhookEndpointRow {
    const row = this.endpoints.find(principal.organizationIds, id);
    if (!row) throw AppError.notFound(`Webhook endpoint ${id}`);
    return row;
  }

  /** The custom headers validated, names lower-cased, sealed; an empty set is stored as none. */
  private sealHeaders(input: Record<string, string>): Pick<WebhookEndpointRow, 'headers_encrypted' | 'header_names'> {
    const headers = normalizeHeaders(input);
    const names = Object.keys(headers);
    return names.length === 0
      ? { headers_encrypted: null, header_names: '' }
      : { headers_encrypted: this.secrets.seal(JSON.stringify(headers)), header_names: names.join(',') };
  }

  private checkUrl(url: string): void {
    const problem = webhookUrlProblem(url, this.allowInsecureUrls);
    if (problem) throw AppError.invalid([{ param: 'url', message: problem }]);
  }
}
