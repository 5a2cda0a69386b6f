import { ErrorCode, LogLevel, WebClient, type Block, type KnownBlock, type Logger as SlackLogger } from '@slack/web-api';
import type { WebhookEvent } from '../webhooks/signature';
import { summarizeEvent, type EventLinks } from './event-summary';

/** A Slack message: Block Kit blocks and the plain-text fallback shown in notifications. */
export interface SlackMessage {
  text: string;
  blocks: (KnownBlock | Block)[];
}

/** Slack API errors that retrying cannot fix: the integration must be reconfigured. */
const PERMANENT_ERRORS = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'missing_scope',
  'restricted_action',
]);

/** Outcome of posting to Slack. */
export type SlackPostResult =
  { ok: true; ts: string } | { ok: false; error: string; permanent: boolean; retryAfterMs: number | null; statusCode: number | null };

/** The Block Kit message for an svc event. */
export function slackMessageFor(event: WebhookEvent, links: EventLinks): SlackMessage {
  const summary = summarizeEvent(event, links);
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: `*${escape(summary.headline)}*` } }];
  if (summary.body) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: escape(summary.body) } });
  if (summary.facts.length > 0) {
    blocks.push({
      type: 'section',
      fields: summary.facts.map((f) => ({ type: 'mrkdwn' as const, text: `*${escape(f.title)}*\n${escape(f.value)}` })),
    });
  }
  if (summary.button) {
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: summary.button.label }, url: summary.button.url }],
    });
  }
  const link = summary.button ? ` ${summary.button.url}` : '';
  return { text: `${summary.headline}${link}`, blocks };
}

/** Where the Slack client's own log lines go (the caller's structured logger), instead of raw lines on stderr. */
export interface ChatLogger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** Posts a message with chat.postMessage; never throws. Slack's own retries are off: the caller's outbox retries. */
export async function postSlackMessage(opts: {
  token: string;
  channel: string;
  message: SlackMessage;
  slackApiUrl?: string;
  timeoutMs?: number;
  /** Receives the Slack client's warnings; without one they are dropped. */
  logger?: ChatLogger;
}): Promise<SlackPostResult> {
  const client = new WebClient(opts.token, {
    slackApiUrl: opts.slackApiUrl,
    logger: slackLoggerFor(opts.logger),
    logLevel: LogLevel.WARN,
    timeout: opts.timeoutMs ?? 15_000,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  try {
    const res = await client.chat.postMessage({ channel: opts.channel, text: opts.message.text, blocks: opts.message.blocks });
    return { ok: true, ts: String(res.ts) };
  } catch (err) {
    return failure(err as { code?: string; data?: { error?: string }; retryAfter?: number; statusCode?: number; message?: string });
  }
}

// Adapts a ChatLogger to the Slack client's logger interface; every line is one string prefixed "slack: ".
function slackLoggerFor(logger: ChatLogger | undefined): SlackLogger {
  let level = LogLevel.WARN;
  const line = (parts: unknown[]) => `slack: ${parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ')}`;
  return {
    debug: (...parts: unknown[]) => logger?.debug(line(parts)),
    info: (...parts: unknown[]) => logger?.info(line(parts)),
    warn: (...parts: unknown[]) => logger?.warn(line(parts)),
    error: (...parts: unknown[]) => logger?.error(line(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

function failure(err: {
  code?: string;
  data?: { error?: string };
  retryAfter?: number;
  statusCode?: number;
  message?: string;
}): SlackPostResult {
  switch (err.code) {
    case ErrorCode.RateLimitedError:
      return { ok: false, error: 'ratelimited', permanent: false, retryAfterMs: (err.retryAfter ?? 60) * 1000, statusCode: 429 };
    case ErrorCode.PlatformError: {
      const error = err.data?.error ?? 'unknown_error';
      return { ok: false, error, permanent: PERMANENT_ERRORS.has(error), retryAfterMs: null, statusCode: 200 };
    }
    case ErrorCode.HTTPError:
      return { ok: false, error: `HTTP ${err.statusCode}`, permanent: false, retryAfterMs: null, statusCode: err.statusCode ?? null };
    default:
      return { ok: false, error: err.message ?? 'request failed', permanent: false, retryAfterMs: null, statusCode: null };
  }
}

/** Escapes the three characters Slack's mrkdwn gives meaning to. */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
