import http from 'node:http';
import type { LlmMessage } from '../llm/llm.client';

/** A chat completion request the fake LLM accepted. */
export interface LlmRequest {
  authorization: string | undefined;
  model: string;
  messages: LlmMessage[];
  temperature: unknown;
}

/** What the fake answers: a completion with `content`, an HTTP error `status`, a raw body, or no answer at all (`hang`). */
export type LlmReply = { content: string } | { status: number } | { raw: string } | { hang: true };

/** A local stand-in for an OpenAI-compatible chat completions endpoint that checks what it receives. */
export interface FakeLlm {
  /** The base URL to configure (SVC_LLM_URL): requests must go to `{url}/chat/completions`. */
  url: string;
  requests: LlmRequest[];
  /** Requests that broke a rule, with the reason; a passing test expects none. */
  problems: string[];
  /** How the fake answers the next requests (a completion saying NOT_FOUND until set). */
  reply: (request: LlmRequest) => LlmReply;
  close(): Promise<void>;
}

/** Starts a fake LLM endpoint; with `apiKey`, a request without `Authorization: Bearer <apiKey>` gets 401. */
export async function startFakeLlm(opts: { apiKey?: string } = {}): Promise<FakeLlm> {
  const fake: Omit<FakeLlm, 'url' | 'close'> = { requests: [], problems: [], reply: () => ({ content: 'NOT_FOUND' }) };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: string) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(body);
      };
      const refuse = (status: number, problem: string) => {
        fake.problems.push(problem);
        answer(status, JSON.stringify({ error: { message: problem } }));
      };
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return refuse(404, `${req.method} ${req.url}`);
      if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        return refuse(401, `authorization ${req.headers.authorization}`);
      }
      if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
        return refuse(415, `content-type ${req.headers['content-type']}`);
      let body: { model?: unknown; messages?: unknown; temperature?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return refuse(400, 'body is not JSON');
      }
      const messages = body.messages as LlmMessage[];
      const wellFormed =
        Array.isArray(messages) &&
        messages.length > 0 &&
        messages.every((m) => ['system', 'user', 'assistant'].includes(m?.role) && typeof m.content === 'string');
      if (typeof body.model !== 'string' || !wellFormed) return refuse(400, 'model and messages [{role, content}] are required');
      const request = { authorization: req.headers.authorization, model: body.model, messages, temperature: body.temperature };
      fake.requests.push(request);
      const reply = fake.reply(request);
      if ('hang' in reply) return;
      if ('status' in reply) return answer(reply.status, JSON.stringify({ error: { message: 'scripted failure' } }));
      if ('raw' in reply) return answer(200, reply.raw);
      answer(
        200,
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
