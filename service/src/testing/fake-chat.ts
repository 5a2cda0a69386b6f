import http from 'node:http';

// The package's ES build cannot load in Node; its UMD bundle can.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const AdaptiveCards = require('adaptivecards/dist/adaptivecards.js') as typeof import('adaptivecards');

/** A message the fake Slack accepted. */
export interface SlackPost {
  token: string;
  channel: string;
  text: string;
  blocks: Record<string, unknown>[];
}

/** A local stand-in for Slack's Web API that checks what chat.postMessage receives as strictly as Slack does. */
export interface FakeSlack {
  /** Base URL to give the client (ends in /api/). */
  apiUrl: string;
  posts: SlackPost[];
  /** Requests that broke a rule, with the reason; a passing test expects none. */
  problems: string[];
  /** The next `count` calls answer 429 ratelimited with Retry-After. */
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** The next `count` calls answer `{ok: false, error}`, as Slack does for a message it refuses (e.g. `invalid_blocks`). */
  refuseNext(count: number, error: string): void;
  /** How many chat.postMessage calls arrived, accepted or not. */
  calls(): number;
  /** Slack's consent page ("Add to Slack"): it approves at once, redirecting to the redirect URI with a fresh code. */
  authorizeUrl: string;
  /** A code as the consent page grants it, for tests that skip the browser. */
  issueCode(): string;
  /** The oauth.v2.access calls that arrived (after the code and credentials were checked or not). */
  exchanges: { client_id: string | null; code: string | null; redirect_uri: string | null; ok: boolean }[];
  /** Sets the Slack app (e.g. once the service's port, hence the redirect URI, is known). */
  setApp(app: FakeSlackApp): void;
  close(): Promise<void>;
}

/** The Slack app a fake Slack knows, for "Add to Slack": its credentials, redirect URI, and what an install grants. */
export interface FakeSlackApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** The bot token oauth.v2.access grants. */
  botToken: string;
  /** The channel the user picks on the consent page (incoming_webhook), or null for an install without one. */
  channel: { id: string; name: string } | null;
}

/** Starts a fake Slack knowing one valid token and the channels that exist, and optionally one Slack app for OAuth installs. */
export async function startFakeSlack(opts: { token: string; channels: string[]; app?: FakeSlackApp }): Promise<FakeSlack> {
  const codes = new Map<string, 'issued' | 'used'>();
  const exchanges: FakeSlack['exchanges'] = [];
  const issueCode = () => {
    const code = `code-${codes.size + 1}-${Math.random().toString(36).slice(2, 10)}`;
    codes.set(code, 'issued');
    return code;
  };
  const posts: SlackPost[] = [];
  const problems: string[] = [];
  let rateLimited = { count: 0, retryAfter: 0 };
  let refused = { count: 0, error: '' };
  let calls = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      const url = new URL(req.url ?? '/', 'http://fake-slack');
      if (req.method === 'GET' && url.pathname === '/oauth/v2/authorize') {
        const app = opts.app;
        const wrong = !app
          ? 'no app'
          : url.searchParams.get('client_id') !== app.clientId
            ? 'client_id'
            : url.searchParams.get('redirect_uri') !== app.redirectUri
              ? 'redirect_uri'
              : !(url.searchParams.get('scope') ?? '').split(',').includes('chat:write')
                ? 'scope'
                : !url.searchParams.get('state')
                  ? 'state'
                  : null;
        if (wrong) {
          problems.push(`authorize: bad ${wrong}`);
          res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`bad ${wrong}`);
          return;
        }
        const back = new URL(app!.redirectUri);
        back.searchParams.set('code', issueCode());
        back.searchParams.set('state', url.searchParams.get('state')!);
        res.writeHead(302, { Location: back.toString() }).end();
        return;
      }
      if (req.method === 'POST' && url.pathname === '/api/oauth.v2.access') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const [clientId, code, redirectUri] = [form.get('client_id'), form.get('code'), form.get('redirect_uri')];
        const app = opts.app;
        const error = !app
          ? 'invalid_client_id'
          : clientId !== app.clientId
            ? 'invalid_client_id'
            : form.get('client_secret') !== app.clientSecret
              ? 'bad_client_secret'
              : !code || codes.get(code) !== 'issued'
                ? 'invalid_code'
                : redirectUri !== app.redirectUri
                  ? 'bad_redirect_uri'
                  : null;
        exchanges.push({ client_id: clientId, code, redirect_uri: redirectUri, ok: error === null });
        if (error) return answer(200, { ok: false, error });
        codes.set(code!, 'used');
        return answer(200, {
          ok: true,
          app_id: 'A0FAKEAPP',
          access_token: app!.botToken,
          token_type: 'bot',
          scope: 'chat:write,chat:write.public,incoming-webhook',
          bot_user_id: 'U0FAKEBOT',
          team: { id: 'T0FAKETEAM', name: 'Fake team' },
          ...(app!.channel && {
            incoming_webhook: {
              channel: `#${app!.channel.name}`,
              channel_id: app!.channel.id,
              configuration_url: 'https://fake-team.slack.com/services/B0FAKE',
              url: 'https://hooks.slack.com/services/T0FAKETEAM/B0FAKE/secret',
            },
          }),
        });
      }
      if (req.method !== 'POST' || req.url !== '/api/chat.postMessage') return answer(404, { ok: false, error: 'unknown_method' });
      calls++;
      if (refused.count > 0) {
        refused.count--;
        return answer(200, { ok: false, error: refused.error });
      }
      if (rateLimited.count > 0) {
        rateLimited.count--;
        return answer(429, { ok: false, error: 'ratelimited' }, { 'Retry-After': String(rateLimited.retryAfter) });
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (token !== opts.token) return answer(200, { ok: false, error: 'invalid_auth' });
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        problems.push(`content-type ${req.headers['content-type']}`);
        return answer(200, { ok: false, error: 'invalid_form_data' });
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const channel = form.get('channel') ?? '';
      if (!opts.channels.includes(channel)) return answer(200, { ok: false, error: 'channel_not_found' });
      const text = form.get('text') ?? '';
      let blocks: Record<string, unknown>[] = [];
      try {
        blocks = JSON.parse(form.get('blocks') ?? 'null');
      } catch {
        problems.push('blocks is not JSON');
      }
      const blockProblems = [...(text.trim() ? [] : ['text fallback is empty']), ...checkBlocks(blocks)];
      if (blockProblems.length > 0) {
        problems.push(...blockProblems);
        return answer(200, { ok: false, error: 'invalid_blocks', errors: blockProblems });
      }
      posts.push({ token, channel, text, blocks });
      answer(200, { ok: true, channel, ts: `${Date.now() / 1000}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    posts,
    problems,
    rateLimitNext(count, retryAfterSeconds) {
      rateLimited = { count, retryAfter: retryAfterSeconds };
    },
    refuseNext(count, error) {
      refused = { count, error };
    },
    calls: () => calls,
    authorizeUrl: `http://127.0.0.1:${port}/oauth/v2/authorize`,
    issueCode,
    exchanges,
    setApp(app) {
      opts.app = app;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const TEXT_TYPES = ['mrkdwn', 'plain_text'];

/** Block Kit rules for the block types a notification may use (limits from Slack's reference). */
function checkBlocks(blocks: unknown): string[] {
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50) return ['blocks must be an array of 1 to 50 blocks'];
  return blocks.flatMap((block: Record<string, unknown>, i) => {
    const at = `blocks[${i}]`;
    switch (block.type) {
      case 'section': {
        const problems: string[] = [];
        if (block.text === undefined && block.fields === undefined) problems.push(`${at}: a section needs text or fields`);
        if (block.text !== undefined) problems.push(...checkText(block.text, 3000, `${at}.text`));
        if (block.fields !== undefined) {
          const fields = block.fields as unknown[];
          if (!Array.isArray(fields) || fields.length === 0 || fields.length > 10) problems.push(`${at}.fields: 1 to 10 fields`);
          else fields.forEach((f, j) => problems.push(...checkText(f, 2000, `${at}.fields[${j}]`)));
        }
        return problems;
      }
      case 'actions': {
        const elements = block.elements as Record<string, unknown>[];
        if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25) return [`${at}.elements: 1 to 25 elements`];
        return elements.flatMap((e, j) => {
          if (e.type !== 'button') return [`${at}.elements[${j}]: only buttons are expected`];
          const text = e.text as Record<string, unknown> | undefined;
          const problems =
            text?.type === 'plain_text'
              ? checkText(text, 75, `${at}.elements[${j}].text`)
              : [`${at}.elements[${j}].text must be plain_text`];
          if (typeof e.url !== 'string' || e.url.length > 3000 || !URL.canParse(e.url))
            problems.push(`${at}.elements[${j}].url must be a URL`);
          return problems;
        });
      }
      case 'header': {
        const text = block.text as { type?: string } | undefined;
        if (text?.type !== 'plain_text') return [`${at}.text must be plain_text`];
        return checkText(text, 150, `${at}.text`);
      }
      case 'context':
      case 'divider':
        return [];
      default:
        return [`${at}: unknown block type ${String(block.type)}`];
    }
  });
}

function checkText(text: unknown, max: number, at: string): string[] {
  const t = text as { type?: string; text?: unknown };
  if (!t || !TEXT_TYPES.includes(t.type ?? '') || typeof t.text !== 'string' || t.text.length === 0 || t.text.length > max) {
    return [`${at} must be a text object (mrkdwn or plain_text) of 1 to ${max} characters`];
  }
  return [];
}

/** A card the fake Teams accepted. */
export interface TeamsPost {
  path: string;
  card: Record<string, unknown>;
}

/** A local stand-in for a Teams Workflows webhook that validates each Adaptive Card with the adaptivecards library. */
export interface FakeTeams {
  url: string;
  posts: TeamsPost[];
  problems: string[];
  /** Answers every request with this status from now on (202 by default). */
  answerWith(status: number): void;
  close(): Promise<void>;
}

/** Starts a fake Teams Workflows webhook. */
export async function startFakeTeams(): Promise<FakeTeams> {
  const posts: TeamsPost[] = [];
  const problems: string[] = [];
  let status = 202;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (status !== 202) {
        res.writeHead(status).end();
        return;
      }
      const found = checkTeamsMessage(req.headers['content-type'], Buffer.concat(chunks).toString('utf8'));
      if (typeof found === 'string') {
        problems.push(found);
        res.writeHead(400).end(found);
        return;
      }
      posts.push({ path: req.url ?? '', card: found });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/workflows/abc123/triggers/manual/paths/invoke?sig=secret-sig`,
    posts,
    problems,
    answerWith(next) {
      status = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The Adaptive Card of a valid Workflows message, or what is wrong with it. */
function checkTeamsMessage(contentType: string | undefined, body: string): Record<string, unknown> | string {
  if (!(contentType ?? '').startsWith('application/json')) return `content-type ${contentType}`;
  let message: { type?: string; attachments?: { contentType?: string; content?: Record<string, unknown> }[] };
  try {
    message = JSON.parse(body);
  } catch {
    return 'body is not JSON';
  }
  if (message.type !== 'message' || !Array.isArray(message.attachments) || message.attachments.length !== 1) {
    return 'expected {type: "message", attachments: [one card]}';
  }
  const [attachment] = message.attachments;
  if (attachment!.contentType !== 'application/vnd.microsoft.card.adaptive') return `attachment contentType ${attachment!.contentType}`;
  const content = attachment!.content ?? {};
  if (content.type !== 'AdaptiveCard' || content.version !== '1.4') return 'content must be an AdaptiveCard of version 1.4';
  const card = new AdaptiveCards.AdaptiveCard();
  const context = new AdaptiveCards.SerializationContext();
  card.parse(content, context);
  const issues = [
    ...Array.from({ length: context.eventCount }, (_, i) => context.getEventAt(i).message),
    ...card.validateProperties().validationEvents.map((e) => e.message),
  ];
  return issues.length > 0 ? `invalid card: ${issues.join('; ')}` : content;
}
