import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import type { SendResult } from './destination';
import { isIpLiteral, isPublicAddress } from './url-policy';

const RESPONSE_BODY_LIMIT = 1024;
const MAX_PARSED_URLS = 10_000;
/** The User-Agent of every webhook and chat POST. */
export const SENDER_USER_AGENT = 'svc-webhooks/1';

/** POSTs a body; never throws. The result's retryAfterMs is the answer's Retry-After, whatever the status. */
export type Sender = (url: string, headers: Record<string, string>, body: string) => Promise<SendResult>;

/**
 * A POST sender over node:http(s) with keep-alive: no redirects followed, at most 1 KB of the answer
 * read, a connect timeout shorter than the answer timeout, and (unless private targets are allowed) no connection to a non-public
 * address: IP literals are checked before connecting, host names on their resolved address so DNS cannot smuggle one in.
 */
export function httpSender(opts: { timeoutMs: number; connectTimeoutMs?: number; allowPrivateTargets: boolean }): Sender {
  const connectTimeoutMs = Math.min(opts.connectTimeoutMs ?? opts.timeoutMs, opts.timeoutMs);
  const lookup: LookupFunction | undefined = opts.allowPrivateTargets
    ? undefined
    : (hostname, options, callback) =>
        dns.lookup(hostname, options, (err, address, family) => {
          if (err) return callback(err, address, family);
          const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
          if (!addresses.every(isPublicAddress)) {
            return callback(new Error(`${hostname} resolves to a non-public address`), address, family);
          }
          callback(null, address, family);
        });
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
  };

  // Parsed destination URLs: a busy endpoint is POSTed to thousands of times a second.
  const parsed = new Map<string, { target: URL; options: http.RequestOptions }>();
  const parse = (url: string) => {
    let entry = parsed.get(url);
    if (entry === undefined) {
      const target = new URL(url);
      if (parsed.size >= MAX_PARSED_URLS) parsed.clear();
      entry = { target, options: urlToHttpOptions(target) };
      parsed.set(url, entry);
    }
    return entry;
  };

  return (url, headers, body) =>
    new Promise<SendResult>((resolve) => {
      const started = performance.now();
      const done = (result: Omit<SendResult, 'durationMs'>) => resolve({ ...result, durationMs: Math.round(performance.now() - started) });
      let target: URL;
      let options: http.RequestOptions;
      try {
        ({ target, options } = parse(url));
      } catch {
        return done({ statusCode: null, error: 'invalid URL', permanentFailure: null, responseBody: null, retryAfterMs: null });
      }
      // Node skips the `lookup` hook for IP literals, so they are checked here, before any connection.
      if (!opts.allowPrivateTargets && isIpLiteral(target.hostname) && !isPublicAddress(target.hostname)) {
        return done({
          statusCode: null,
          error: `${target.hostname} is not a public address`,
          permanentFailure: null,
          responseBody: null,
          retryAfterMs: null,
        });
      }
      const transport = target.protocol === 'https:' ? https : http;
      const req = transport.request({
        ...options,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': SENDER_USER_AGENT },
        agent: agents[target.protocol as 'http:' | 'https:'],
        lookup,
      });
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
      // A host that never completes the handshake is given up sooner than one that is slow to answer.
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connecting = setTimeout(() => req.destroy(new Error(`could not connect within ${connectTimeoutMs} ms`)), connectTimeoutMs);
        socket.once('connect', () => clearTimeout(connecting));
        socket.once('close', () => clearTimeout(connecting));
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        done({ statusCode: null, error: err.message, permanentFailure: null, responseBody: null, retryAfterMs: null });
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          clearTimeout(timer);
          done({
            statusCode: res.statusCode ?? null,
            error: null,
            permanentFailure: null,
            responseBody: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'),
            retryAfterMs: parseRetryAfter(res.headers['retry-after'], Date.now()),
          });
        };
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_BODY_LIMIT) {
            res.destroy();
            finish();
          }
        });
        res.on('end', finish);
        res.on('error', finish);
      });
      req.end(body);
    });
}

/** Retry-After in ms from seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
