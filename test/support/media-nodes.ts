/**
 * Media nodes for end-to-end tests: a Redis the test starts, and `npx svc media-node` processes on their own
 * port ranges (the CLI the service ships), each with its output and exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { freePort, joinRoom, openPage, randomPortRange, roomUrl, waitForCount, waitForMediaFlowing, type RoomPage } from './browser';

/** The service's CLI, as an operator runs it. */
export const SVC_CLI = path.resolve(__dirname, '../../service/bin/svc.js');

/** A process a test started, with its output and its exit. */
export interface Child {
  proc: ChildProcess;
  out(): string;
  exited: Promise<number | null>;
  running(): boolean;
}

/** Starts `command` and resolves once its stdout matches `ready` (rejects after 20 s or when it exits first). */
export function run(command: string, args: string[], env: Record<string, string>, ready: RegExp, what: string): Promise<Child> {
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const child: Child = { proc, out: () => out, exited, running: () => proc.exitCode === null && proc.signalCode === null };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 20 s: ${out}`)), 20_000);
    const check = () => {
      if (!ready.test(out)) return;
      clearTimeout(timer);
      resolve(child);
    };
    proc.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code} before it was ready: ${out}`));
    });
  });
}

/** A redis-server on a free loopback port, without persistence; its URL and process. */
export async function startRedis(): Promise<{ url: string; child: Child }> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = await run('redis-server', args, {}, /Ready to accept connections/, 'redis-server');
  return { url: `redis://127.0.0.1:${port}`, child };
}

/** The environment of a media node `id` on loopback with one worker, on its own 20 RTC ports, capped at `maxPeers`. */
export function mediaNodeEnv(redisUrl: string, secret: string, id: string, maxPeers: number): Record<string, string> {
  const ports = randomPortRange(20);
  return {
    SVC_REDIS_URL: redisUrl,
    SVC_NODE_SECRET: secret,
    SVC_NODE_ID: id,
    SVC_NODE_PORT: '0',
    SVC_NODE_LISTEN_IP: '127.0.0.1',
    SVC_NODE_MAX_PEERS: String(maxPeers),
    SVC_RTC_WORKERS: '1',
    SVC_RTC_MIN_PORT: String(ports.min),
    SVC_RTC_MAX_PORT: String(ports.max),
    SVC_RTC_LISTEN_IP: '127.0.0.1',
    SVC_LOG_LEVEL: 'warn',
  };
}

/** Runs `npx svc media-node` with `env`; resolves once its control channel listens. */
export function startMediaNode(env: Record<string, string>): Promise<Child> {
  return run(process.execPath, [SVC_CLI, 'media-node'], env, /listening on ws:/, `media node ${env.SVC_NODE_ID}`);
}

/** Kills what is still running of `children` (SIGKILL, the last started first) and waits for every one to exit. */
export async function killChildren(children: readonly Child[]): Promise<void> {
  for (const child of [...children].reverse()) {
    if (child.running()) child.proc.kill('SIGKILL');
    await child.exited;
  }
}

/** Opens the room `code` of the service at `url` as `name` and joins it (not the waiting room); `pages` keeps it for teardown. */
export async function joinAs(browser: Browser, url: string, code: string, name: string, pages: RoomPage[]): Promise<RoomPage> {
  const page = await openPage(browser, roomUrl(url, code, { name }));
  pages.push(page);
  expect(await joinRoom(page.page)).toBe('room');
  return page;
}

/** Each page of a two-person room shows both tiles and decodes the other's audio and video. */
export async function bothReceiving(...room: RoomPage[]): Promise<void> {
  for (const { page } of room) {
    await waitForCount(page, '[data-testid=tile]', 2);
    const stats = await waitForMediaFlowing(page);
    expect(stats.audio.bytesReceived).toBeGreaterThan(0);
    expect(stats.video.framesDecoded).toBeGreaterThan(0);
  }
}
