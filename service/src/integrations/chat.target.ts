import { postSlackMessage, slackMessageFor, teamsMessageFor, type EventLinks, type WebhookEvent } from '@svc/connectors';
import type { ClaimedDelivery } from '../outbox/deliveries.repo';
import { failedBeforeSending, type SendResult } from '../outbox/destination';
import type { Sender } from '../outbox/http-sender';
import type { Logger } from '../shared/logger';
import type { SecretBox } from '../shared/secret-box';
import type { IntegrationRow, IntegrationsRepo } from './integrations.repo';
import { IntegrationTarget } from './integration.target';

/** What posting to chat needs besides the integration itself. */
export interface ChatTargetOptions {
  baseUrl: string;
  slackApiUrl: string;
  timeoutMs: number;
  /** Posts to Teams (the SSRF-guarded HTTP sender webhooks use). */
  send: Sender;
  /** Receives the Slack client's warnings. */
  logger: Logger;
}

/** Slack and Teams integrations as a delivery destination: a Block Kit message or an Adaptive Card per event. */
export class ChatTarget extends IntegrationTarget {
  constructor(
    integrations: IntegrationsRepo,
    private readonly secrets: SecretBox,
    private readonly options: ChatTargetOptions,
  ) {
    super(integrations);
  }

  async attempt(delivery: ClaimedDelivery): Promise<SendResult> {
    const integration = this.integrations.findAny(delivery.destination_id);
    if (!integration) return failedBeforeSending('the integration was deleted', true);
    const event = JSON.parse(delivery.payload) as WebhookEvent;
    const links = linksOf(event, this.options.baseUrl);
    const secret = this.secrets.open(integration.secret_encrypted);
    return integration.kind === 'slack' ? this.postToSlack(integration, secret, event, links) : this.postToTeams(secret, event, links);
  }

  /** Posts a sample meeting.started notification to a Slack or Teams integration now, outside the outbox; nothing is recorded. */
  async sendTest(integration: IntegrationRow, at: Date): Promise<SendResult> {
    const meeting = {
      id: 'mtg_test',
      code: 'tst-test-tst',
      title: 'Test message from svc',
      status: 'live',
      started_at: at.toISOString(),
      ended_at: null,
    };
    const event: WebhookEvent = { id: 'evt_test', type: 'meeting.started', created_at: at.toISOString(), data: { meeting } };
    const secret = this.secrets.open(integration.secret_encrypted);
    const links = linksOf(event, this.options.baseUrl);
    return integration.kind === 'slack' ? this.postToSlack(integration, secret, event, links) : this.postToTeams(secret, event, links);
  }

  private async postToSlack(integration: IntegrationRow, token: string, event: WebhookEvent, links: EventLinks): Promise<SendResult> {
    const started = performance.now();
    const result = await postSlackMessage({
      token,
      channel: integration.channel!,
      message: slackMessageFor(event, links),
      slackApiUrl: this.options.slackApiUrl,
      timeoutMs: this.options.timeoutMs,
      logger: this.options.logger,
    });
    const durationMs = Math.round(performance.now() - started);
    if (result.ok) return { statusCode: 200, error: null, permanentFailure: null, responseBody: null, retryAfterMs: null, durationMs };
    return {
      statusCode: result.statusCode,
      error: result.error,
      permanentFailure: result.permanent ? `Slack answered ${result.error}` : null,
      undeliverable: result.undeliverable ? `Slack refused this message: ${result.error}` : null,
      responseBody: result.error,
      retryAfterMs: result.retryAfterMs,
      durationMs,
    };
  }

  private async postToTeams(url: string, event: WebhookEvent, links: EventLinks): Promise<SendResult> {
    const result = await this.options.send(url, { 'Content-Type': 'application/json' }, JSON.stringify(teamsMessageFor(event, links)));
    const gone = result.statusCode === 404 || result.statusCode === 410;
    return {
      ...result,
      permanentFailure: gone ? `the Teams workflow URL answered ${result.statusCode}` : null,
      retryAfterMs: result.statusCode === 429 || result.statusCode === 503 ? result.retryAfterMs : null,
    };
  }
}

/** Where a notification about `event` links to: the meeting page and, for a recording, its download. */
export function linksOf(event: WebhookEvent, baseUrl: string): EventLinks {
  const data = event.data as { meeting?: { code?: string }; recording?: { download_url?: string | null } };
  return {
    meeting: data.meeting?.code ? `${baseUrl}/m/${data.meeting.code}` : undefined,
    recording: data.recording?.download_url ?? undefined,
  };
}
