import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const MAIN = path.join(ROOT, 'service/dist/main.js');
const CLI = path.join(ROOT, 'service/bin/svc.js');

/** A real service process (the built `service/dist/main.js`) on a loopback port. */
export interface ServiceProcess {
  url: string;
  dataDir: string;
  /** Everything the process printed on stdout so far. */
  stdout(): string;
  /** Everything the process printed on stderr (its log lines) so far. */
  stderr(): string;
  /** True until the process has exited. */
  running(): boolean;
  /** Sends `signal` and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A fresh data directory for one test. */
export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-'));
}

/** Starts the service on `dataDir` with PORT=0 and waits until it reports its URL (at most 20 s). */
export async function startService(dataDir: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  if (!fs.existsSync(MAIN)) throw new Error('service/dist is missing: run `npm run build` (npm test does) first');
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    // No TURN server unless a test asks for one (SVC_TURN=embedded): most tests need none, and each would run a coturn.
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn', SVC_TURN: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in 20 s: ${err}`)), 20_000);
    const check = () => {
      const match = /listening on (https?:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(match[1]!.replace('localhost', '127.0.0.1'));
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`service exited with ${code} before listening: ${err}`)));
  });
  return {
    url,
    dataDir,
    stdout: () => out,
    stderr: () => err,
    running: () => child.exitCode === null && child.signalCode === null,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the `svc` CLI on `dataDir`; returns its exit code and output. */
export function svcCli(dataDir: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, SVC_DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** Runs the `svc` CLI on `dataDir` without blocking this process (so load can run beside it). */
export function svcCliAsync(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, SVC_DATA_DIR: dataDir }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A JSON request with an optional key. */
export async function call(
  url: string,
  method: string,
  pathAndQuery: string,
  key?: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const send = () => fetch(url + pathAndQuery, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let res: Response;
  try {
    res = await send();
  } catch (error) {
    // A pooled connection the service closed after its 5 s keep-alive, reused because a synchronous CLI call kept
    // this process from noticing: the request never reached the service, so a GET may go again on a new one.
    if (method !== 'GET' || !isClosedByPeer(error)) throw error;
    res = await send();
  }
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

function isClosedByPeer(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | null)?.cause;
  return cause?.code === 'UND_ERR_SOCKET';
}

/** True while a process with this pid exists (signal 0 only checks). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 50 ms until it returns true, for at most `ms`. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An all-scopes key on `dataDir`, created with the CLI, with limits high enough for load tests. */
export function unlimitedKey(dataDir: string): string {
  const args = ['--scopes', 'all', '--rate-limit-per-second', '100000', '--rate-limit-per-minute', '1000000'];
  return svcCli(dataDir, 'keys', 'create', '--name', 'e2e', ...args).stdout.trim();
}
