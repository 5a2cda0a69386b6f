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
  'no_permission',
  'restricted_action',
  'team_access_not_granted',
  'ekm_access_denied',
  'org_login_required',
]);

/** Slack API errors about this one message (its blocks, its size): sending it again gives the same answer, but the integration is fine. */
const MESSAGE_ERRORS = new Set([
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'no_text',
  'too_many_attachments',
  'invalid_arguments',
  'invalid_form_data',
  'invalid_charset',
  'invalid_post_type',
  'missing_post_type',
]);

/** Block Kit limits (Slack's reference): characters of a header, a section's text, a section field and the fallback text; blocks and fields per message and section. */
export const SLACK_LIMITS = { header: 150, sectionText: 3000, field: 2000, fallbackText: 3000, blocks: 50, fieldsPerSection: 10 } as const;

/** Outcome of posting to Slack: `permanent` when the integration must be fixed, `undeliverable` when only this message can never be sent. */
export type SlackPostResult =
  | { ok: true; ts: string }
  | { ok: false; error: string; permanent: boolean; undeliverable: boolean; retryAfterMs: number | null; statusCode: number | null };

/** The Block Kit message for an svc event, within Slack's limits: long texts end in an ellipsis, never inside a character, an entity or bold markup. */
export function slackMessageFor(event: WebhookEvent, links: EventLinks): SlackMessage {
  const summary = summarizeEvent(event, links);
  const blocks: KnownBlock[] = [{ type: 'header', text: { type: 'plain_text', text: shorten(summary.headline, SLACK_LIMITS.header) } }];
  if (summary.body) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: mrkdwn(summary.body, SLACK_LIMITS.sectionText) } });
  const fields = summary.facts.map((f) => ({
    type: 'mrkdwn' as const,
    text: `*${mrkdwn(f.title, 200)}*\n${mrkdwn(f.value, SLACK_LIMITS.field - 204)}`,
  }));
  for (let i = 0; i < fields.length; i += SLACK_LIMITS.fieldsPerSection) {
    blocks.push({ type: 'section', fields: fields.slice(i, i + SLACK_LIMITS.fieldsPerSection) });
  }
  const button = summary.button;
  const actions: KnownBlock | undefined = button
    ? { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: shorten(button.label, 75) }, url: button.url }] }
    : undefined;
  const kept = blocks.slice(0, SLACK_LIMITS.blocks - (actions ? 1 : 0));
  const link = button ? ` ${button.url}` : '';
  return { text: shorten(summary.headline, SLACK_LIMITS.fallbackText - link.length) + link, blocks: actions ? [...kept, actions] : kept };
}

const ELLIPSIS = '…';

/** `text` cut to at most `max` UTF-16 units, ending in an ellipsis when cut; a surrogate pair is never split, and a cut prefers a word boundary. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - ELLIPSIS.length;
  if (end > 0 && /[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end--;
  const space = text.lastIndexOf(' ', end);
  if (space > end * 0.8) end = space;
  return text.slice(0, end).trimEnd() + ELLIPSIS;
}

/** `text` escaped for mrkdwn and at most `max` characters long once escaped; a cut never splits an entity such as `&amp;`. */
function mrkdwn(text: string, max: number): string {
  const escaped = escape(text);
  if (escaped.length <= max) return escaped;
  let out = '';
  for (const ch of text) {
    const next = escape(ch);
    if (out.length + next.length + ELLIPSIS.length > max) break;
    out += next;
  }
  const space = out.lastIndexOf(' ');
  return (space > out.length * 0.8 ? out.slice(0, space) : out).trimEnd() + ELLIPSIS;
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
      return {
        ok: false,
        error: 'ratelimited',
        permanent: false,
        undeliverable: false,
        retryAfterMs: (err.retryAfter ?? 60) * 1000,
        statusCode: 429,
      };
    case ErrorCode.PlatformError: {
      const error = err.data?.error ?? 'unknown_error';
      return {
        ok: false,
        error,
        permanent: PERMANENT_ERRORS.has(error),
        undeliverable: MESSAGE_ERRORS.has(error),
        retryAfterMs: null,
        statusCode: 200,
      };
    }
    case ErrorCode.HTTPError:
      return {
        ok: false,
        error: `HTTP ${err.statusCode}`,
        permanent: false,
        undeliverable: false,
        retryAfterMs: null,
        statusCode: err.statusCode ?? null,
      };
    default:
      return {
        ok: false,
        error: err.message ?? 'request failed',
        permanent: false,
        undeliverable: false,
        retryAfterMs: null,
        statusCode: null,
      };
  }
}

/** Escapes the three characters Slack's mrkdwn gives meaning to. */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
