import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SlackOAuthConfig } from '../config';
import type { EventType } from '../events/event-types';
import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import type { SignedTokens } from '../shared/signed-tokens';
import type { Transaction } from '../shared/transaction';
import type { Integration, IntegrationsService } from './integrations.service';
import type { SlackOAuthRepo } from './slack-oauth.repo';

/** The dashboard route Slack redirects the browser to; `{base_url}` + this is the redirect URL to register in the Slack app. */
export const SLACK_OAUTH_CALLBACK_PATH = '/dashboard/api/integrations/slack/callback';

/** How long the consent step may take: the state expires after 10 minutes. */
export const SLACK_STATE_TTL_MS = 10 * 60_000;

/** The bot scopes the install asks for: post messages (also to public channels it was not invited to) and pick a channel. */
export const SLACK_BOT_SCOPES = ['chat:write', 'chat:write.public', 'incoming-webhook'];

const BOT_TOKEN = /^xoxb-[A-Za-z0-9-]{10,250}$/;

/** What the OAuth state carries, signed: a nonce, the session (hashed), the organization and the events to post. */
interface StateClaims extends Record<string, unknown> {
  n: string;
  s: string;
  o: string;
  e: EventType[];
}

/** The parts of Slack's oauth.v2.access answer the install uses. */
interface SlackAccessAnswer {
  ok: boolean;
  error?: string;
  access_token?: string;
  token_type?: string;
  team?: { id?: string; name?: string };
  incoming_webhook?: { channel?: string; channel_id?: string };
}

/** Who is installing: the dashboard session and the organizations its user may act in. */
export interface Installer {
  sessionId: string;
  organizationIds: string[];
}

/** What the service needs besides its collaborators. */
export interface SlackOAuthSettings extends SlackOAuthConfig {
  /** Slack's Web API base (ends in /), where oauth.v2.access lives. */
  apiUrl: string;
  /** Where Slack sends the browser back: the dashboard's callback route, registered in the Slack app. */
  redirectUri: string;
  timeoutMs: number;
}

/** What SlackOAuthService works with. */
export interface SlackOAuthServiceDeps {
  repo: SlackOAuthRepo;
  integrations: IntegrationsService;
  tokens: SignedTokens;
  transaction: Transaction;
  clock: Clock;
  settings: SlackOAuthSettings;
  logger: Logger;
}

/**
 * "Add to Slack" (OAuth v2) for an organization's notifications: `start` signs a short-lived state bound to the
 * dashboard session and organization and returns Slack's consent URL; `complete` checks the state (signature, expiry,
 * session, single use), exchanges the code at oauth.v2.access and stores the bot token encrypted as an integration.
 * A refused state or a Slack error changes nothing.
 */
export class SlackOAuthService {
  private readonly repo: SlackOAuthRepo;
  private readonly integrations: IntegrationsService;
  private readonly tokens: SignedTokens;
  private readonly transaction: Transaction;
  private readonly clock: Clock;
  private readonly settings: SlackOAuthSettings;
  private readonly logger: Logger;

  constructor(deps: SlackOAuthServiceDeps) {
    this.repo = deps.repo;
    this.integrations = deps.integrations;
    this.tokens = deps.tokens;
    this.transaction = deps.transaction;
    this.clock = deps.clock;
    this.settings = deps.settings;
    this.logger = deps.logger;
  }

  /** Slack's consent URL for an install into `organizationId` posting `events`. */
  start(installer: Installer, organizationId: string, events: EventType[]): string {
    if (!installer.organizationIds.includes(organizationId)) throw AppError.notFound(`Organization ${organizationId}`);
    const claims: StateClaims = {
      n: randomBytes(16).toString('base64url'),
      s: sessionHash(installer.sessionId),
      o: organizationId,
      e: events,
    };
    const state = this.tokens.sign('slack-oauth-state', claims, this.clock.now() + SLACK_STATE_TTL_MS);
    const url = new URL(this.settings.authorizeUrl);
    url.searchParams.set('client_id', this.settings.clientId);
    url.searchParams.set('scope', SLACK_BOT_SCOPES.join(','));
    url.searchParams.set('redirect_uri', this.settings.redirectUri);
    url.searchParams.set('state', state);
    return url.toString();
  }

  /** Finishes an install from Slack's redirect (`code` and `state`, or `error` when the user declined). */
  async complete(installer: Installer, answer: { code?: string; state?: string; error?: string }): Promise<Integration> {
    const claims = this.checkState(installer, answer.state);
    if (answer.error) throw new AppError('forbidden', `Slack did not install the app: ${answer.error}`);
    if (!answer.code) throw AppError.invalid([{ param: 'code', message: 'is missing from Slack’s redirect' }]);
    const access = await this.exchange(answer.code);
    const channel = access.incoming_webhook?.channel_id ?? null;
    const integration = this.transaction(() => {
      const now = this.clock.now();
      this.repo.prune(now - SLACK_STATE_TTL_MS);
      if (!this.repo.markUsed(claims.n, now)) throw usedState();
      return this.integrations.installSlack(claims.o, { events: claims.e, botToken: access.access_token!, channel });
    });
    this.logger.info('slack app installed', {
      integration_id: integration.id,
      organization_id: claims.o,
      team_id: access.team?.id ?? null,
    });
    return integration;
  }

  private checkState(installer: Installer, state: string | undefined): StateClaims {
    if (!state) throw new AppError('unauthorized', 'The Slack install has no state: start again from Settings → Integrations');
    let claims: StateClaims;
    try {
      claims = this.tokens.verify<StateClaims>('slack-oauth-state', state, this.clock.now());
    } catch {
      throw new AppError('unauthorized', 'The Slack install link is invalid or has expired: start again from Settings → Integrations');
    }
    const expected = Buffer.from(sessionHash(installer.sessionId));
    const offered = Buffer.from(String(claims.s));
    if (offered.length !== expected.length || !timingSafeEqual(offered, expected) || !installer.organizationIds.includes(claims.o)) {
      throw new AppError(
        'forbidden',
        'This Slack install was started in another dashboard session: start again from Settings → Integrations',
      );
    }
    if (this.repo.isUsed(claims.n)) throw usedState();
    return claims;
  }

  private async exchange(code: string): Promise<SlackAccessAnswer> {
    const form = new URLSearchParams({
      client_id: this.settings.clientId,
      client_secret: this.settings.clientSecret,
      code,
      redirect_uri: this.settings.redirectUri,
    });
    let answer: SlackAccessAnswer;
    try {
      const res = await fetch(new URL('oauth.v2.access', this.settings.apiUrl), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      answer = (await res.json()) as SlackAccessAnswer;
    } catch (err) {
      this.logger.warn('slack oauth.v2.access failed', { reason: err instanceof Error ? err.name : 'unknown' });
      throw new AppError('bad_gateway', 'Slack could not be reached to finish the install; try again');
    }
    if (!answer.ok) throw new AppError('bad_gateway', `Slack refused the install: ${String(answer.error ?? 'unknown_error')}`);
    if (answer.token_type !== 'bot' || !BOT_TOKEN.test(answer.access_token ?? '')) {
      throw new AppError('bad_gateway', 'Slack answered the install without a bot token');
    }
    return answer;
  }
}

function sessionHash(sessionId: string): string {
  return createHash('sha256').update(`slack-oauth:${sessionId}`).digest('base64url');
}

function usedState(): AppError {
  return AppError.conflict('This Slack install link was already used: start again from Settings → Integrations');
}
