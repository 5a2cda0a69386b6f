import type { EventType } from '../events/event-types';
import type { EventRow } from '../events/events.repo';
import type { EventSubscriber } from '../events/events.service';
import { AppError } from '../shared/errors';
import type { PageRequest } from '../shared/paging';
import type { DeliveriesRepo } from '../outbox/deliveries.repo';
import { deliveriesOf, queueForSubscribers, type Delivery } from '../outbox/deliveries';
import { webhookUrlProblem } from '../outbox/url-policy';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { SecretBox } from '../shared/secret-box';
import type { Transaction } from '../shared/transaction';
import type { IntegrationKind, IntegrationRow, IntegrationsRepo } from './integrations.repo';
import type { CreateIntegrationInput, UpdateIntegrationInput } from './integrations.schemas';

/** The integration resource: never the token or URL, only a hint of it. */
export interface Integration {
  id: string;
  organization_id: string;
  kind: IntegrationKind;
  events: EventType[];
  channel: string | null;
  secret_hint: string;
  enabled: boolean;
  status: 'ok' | 'failing' | 'disabled';
  disabled_reason: string | null;
  last_error: string | null;
  last_delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Why a Slack app installed without a channel is not posting yet. */
export const CHOOSE_CHANNEL = 'installed without a channel: choose the channel to post to';

/** What IntegrationsService works with. */
export interface IntegrationsServiceDeps {
  repo: IntegrationsRepo;
  deliveries: DeliveriesRepo;
  secrets: SecretBox;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  allowInsecureUrls: boolean;
}

/** Slack and Teams notifications per organization, queued through the same outbox as webhooks. */
export class IntegrationsService implements EventSubscriber {
  private readonly repo: IntegrationsRepo;
  private readonly deliveries: DeliveriesRepo;
  private readonly secrets: SecretBox;
  private readonly transaction: Transaction;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;
  private readonly allowInsecureUrls: boolean;

  constructor(deps: IntegrationsServiceDeps) {
    this.repo = deps.repo;
    this.deliveries = deps.deliveries;
    this.secrets = deps.secrets;
    this.transaction = deps.transaction;
    this.ids = deps.ids;
    this.clock = deps.clock;
    this.allowInsecureUrls = deps.allowInsecureUrls;
  }

  /** Queues a pending delivery for each enabled integration of the event's organization that subscribes to its type. */
  enqueue(event: EventRow): void {
    queueForSubscribers(this.repo, this.deliveries, this.ids, event, this.clock.now());
  }

  /** Adds an integration to an organization (the caller checked that it may). */
  create(organizationId: string, input: CreateIntegrationInput): Integration {
    const secret = this.secretOf(input.kind, input);
    if (input.kind === 'slack' && !input.channel) throw AppError.invalid([{ param: 'channel', message: 'is required for Slack' }]);
    return this.insert(organizationId, input.kind, input.events, input.kind === 'slack' ? input.channel! : null, secret, null);
  }

  /**
   * Adds a Slack integration installed through "Add to Slack" with the bot token Slack granted; without a channel
   * from the install it stays disabled until one is set (PATCH channel enables it).
   */
  installSlack(organizationId: string, install: { events: EventType[]; botToken: string; channel: string | null }): Integration {
    const secret = this.secretOf('slack', { bot_token: install.botToken });
    return this.insert(organizationId, 'slack', install.events, install.channel, secret, install.channel ? null : CHOOSE_CHANNEL);
  }

  private insert(
    organizationId: string,
    kind: IntegrationKind,
    events: EventType[],
    channel: string | null,
    secret: string,
    disabledReason: string | null,
  ): Integration {
    const now = isoAt(this.clock.now());
    const row: IntegrationRow = {
      id: this.ids.next('int'),
      organization_id: organizationId,
      kind,
      events,
      channel,
      secret_encrypted: this.secrets.seal(secret),
      secret_hint: hintOf(kind, secret),
      enabled: disabledReason === null ? 1 : 0,
      disabled_reason: disabledReason,
      failing_since: null,
      last_error: null,
      last_delivered_at: null,
      created_at: now,
      updated_at: now,
    };
    this.repo.insert(row);
    return view(row);
  }

  list(orgIds: string[], page: PageRequest): IntegrationRow[] {
    return this.repo.list(orgIds, page.after, page.limit + 1);
  }

  get(orgIds: string[], id: string): Integration {
    return view(this.find(orgIds, id));
  }

  update(orgIds: string[], id: string, input: UpdateIntegrationInput): Integration {
    const row = this.find(orgIds, id);
    if (row.kind !== 'teams' && input.webhook_url !== undefined)
      throw AppError.invalid([{ param: 'webhook_url', message: 'is for Teams integrations' }]);
    if (row.kind !== 'slack' && (input.bot_token !== undefined || input.channel !== undefined)) {
      throw AppError.invalid([{ param: input.bot_token !== undefined ? 'bot_token' : 'channel', message: 'is for Slack integrations' }]);
    }
    const next: IntegrationRow = {
      ...row,
      events: input.events ?? row.events,
      channel: input.channel ?? row.channel,
      updated_at: isoAt(this.clock.now()),
    };
    const newSecret = row.kind === 'slack' ? input.bot_token : row.kind === 'teams' ? input.webhook_url : undefined;
    if (newSecret !== undefined) {
      const secret = this.secretOf(row.kind, row.kind === 'slack' ? { bot_token: newSecret } : { webhook_url: newSecret });
      Object.assign(next, { secret_encrypted: this.secrets.seal(secret), secret_hint: hintOf(row.kind, secret) });
    }
    const reconfigured = newSecret !== undefined || input.channel !== undefined;
    const enable = input.enabled === true || (reconfigured && input.enabled === undefined && !row.enabled);
    if (enable && next.kind === 'slack' && next.channel === null) {
      throw AppError.invalid([{ param: 'channel', message: 'is required before a Slack integration can post' }]);
    }
    if (enable) Object.assign(next, { enabled: 1, disabled_reason: null, failing_since: null, last_error: null });
    if (input.enabled === false) Object.assign(next, { enabled: 0, disabled_reason: 'disabled through the API' });
    this.transaction(() => {
      this.repo.update(next);
      if (enable && !row.enabled) this.deliveries.resume(row.id, this.clock.now());
      if (input.enabled === false && row.enabled) this.deliveries.park(row.id);
    });
    return view(next);
  }

  /** Deletes an integration with its deliveries. */
  remove(orgIds: string[], id: string): void {
    const row = this.find(orgIds, id);
    this.transaction(() => {
      this.deliveries.deleteForDestination(row.id);
      this.repo.delete(row.id);
    });
  }

  listDeliveries(orgIds: string[], id: string, page: PageRequest): (Delivery & { integration_id: string })[] {
    const row = this.find(orgIds, id);
    return deliveriesOf(this.deliveries, row.id, page).map((d) => ({ ...d, integration_id: row.id }));
  }

  /** Every integration, for the operator's CLI. */
  listAll(): Integration[] {
    return this.repo.listAll().map(view);
  }

  private find(orgIds: string[], id: string): IntegrationRow {
    const row = this.repo.find(orgIds, id);
    if (!row) throw AppError.notFound(`Integration ${id}`);
    return row;
  }

  private secretOf(kind: IntegrationKind, input: { bot_token?: string; webhook_url?: string }): string {
    if (kind === 'project') {
      if (input.bot_token !== undefined || input.webhook_url !== undefined) {
        throw AppError.invalid([
          { param: input.bot_token !== undefined ? 'bot_token' : 'webhook_url', message: 'is not used by project integrations' },
        ]);
      }
      return '';
    }
    if (kind === 'slack') {
      if (!input.bot_token) throw AppError.invalid([{ param: 'bot_token', message: 'is required for Slack' }]);
      if (input.webhook_url !== undefined) throw AppError.invalid([{ param: 'webhook_url', message: 'is for Teams integrations' }]);
      return input.bot_token;
    }
    if (!input.webhook_url) throw AppError.invalid([{ param: 'webhook_url', message: 'is required for Teams' }]);
    if (input.bot_token !== undefined) throw AppError.invalid([{ param: 'bot_token', message: 'is for Slack integrations' }]);
    const problem = webhookUrlProblem(input.webhook_url, this.allowInsecureUrls);
    if (problem) throw AppError.invalid([{ param: 'webhook_url', message: problem }]);
    return input.webhook_url;
  }
}

/** The API form of a stored integration. */
export function view(row: IntegrationRow): Integration {
  return {
    id: row.id,
    organization_id: row.organization_id,
    kind: row.kind,
    events: row.events,
    channel: row.channel,
    secret_hint: row.secret_hint,
    enabled: row.enabled === 1,
    status: !row.enabled ? 'disabled' : row.failing_since !== null ? 'failing' : 'ok',
    disabled_reason: row.disabled_reason,
    last_error: row.last_error,
    last_delivered_at: row.last_delivered_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function hintOf(kind: IntegrationKind, secret: string): string {
  if (kind === 'project') return 'public.svc_events';
  return kind === 'slack' ? `${secret.slice(0, 5)}…${secret.slice(-4)}` : new URL(secret).host;
}
