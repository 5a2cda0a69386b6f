/**
 * Throughput and latency of the public API's authenticated GET and POST of a meeting, each compared
 * with a bare Express 5 handler measured in the same run on the same machine. See bench/README.md.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import express from 'express';

const ROOT = path.resolve(__dirname, '..');
const SERVICE_MAIN = path.join(ROOT, 'service', 'dist', 'main.js');
const SERVICE_CLI = path.join(ROOT, 'service', 'bin', 'svc.js');
/** argv[2] that makes this file run the bare baseline server instead of the benchmark. */
const BARE_SERVER_ROLE = '--bare-server';

const CONNECTIONS = 50;
const WARMUP_SECONDS = 3;
const DEFAULT_DURATION_SECONDS = 10;
const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
const CLI_TIMEOUT_MS = 30_000;
/** The benchmark key's own limits ("higher limits by agreement"), far above what one run sends. */
const KEY_LIMIT_PER_SECOND = 1_000_000;
const KEY_LIMIT_PER_MINUTE = 60_000_000;
const TARGET_GET_RATIO = 0.5;
const TARGET_GET_P99_MS = 10;

/** The bare handler's constant answer, shaped and sized like a meeting so both serialize similar JSON. */
const BARE_BODY = {
  id: 'mtg_01jd8x3k2m0000000000000000',
  code: 'abc-defg-hij',
  title: 'Benchmark meeting',
  kind: 'meeting',
  slug: null,
  scheduled_at: '2026-05-01T09:00:00.000Z',
  duration_minutes: 60,
  settings: { waiting_room: false, transcription_auto: false },
  status: 'scheduled',
  join_url: 'http://127.0.0.1:8080/m/abc-defg-hij',
  organization_id: 'org_01jd8x3k2m0000000000000000',
  created_at: '2026-05-01T09:00:00.000Z',
  updated_at: '2026-05-01T09:00:00.000Z',
  started_at: null,
  ended_at: null,
};

/** One kind of request to load a server with. */
interface Scenario {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** What one scenario measured; errors and non-2xx answers count warm-up and measured run. */
interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

const execFileAsync = promisify(execFile);
const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/** The baseline: a bare Express 5 app answering GET / with a constant JSON body, on PORT. */
function runBareServer(): void {
  const app = express();
  app.get('/', (_req, res) => {
    res.json(BARE_BODY);
  });
  app.listen(Number(process.env.PORT), '127.0.0.1');
}

/** Seconds of each measured run: BENCH_DURATION, or 10. */
function measuredSeconds(): number {
  const raw = process.env.BENCH_DURATION;
  if (raw === undefined || raw === '') return DEFAULT_DURATION_SECONDS;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`BENCH_DURATION must be a positive integer (seconds), got "${raw}"`);
  return seconds;
}

/** A loopback port that is free right now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (typeof address !== 'object' || address === null) throw new Error('could not find a free port');
  return address.port;
}

/** Starts `node args` with `env`; its stderr goes to ours, and it is killed if this process exits. */
function spawnNode(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Kills every child still running and removes temp directories when this process exits, also on Ctrl+C or SIGTERM. */
function cleanUpOnExit(): void {
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));
}

/** True when the child has exited. */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Polls `url` until it answers 2xx; fails if the child exits or READY_TIMEOUT_MS passes. */
async function waitUntilReady(child: ChildProcess, url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited(child)) throw new Error(`server for ${url} exited (code ${child.exitCode}, signal ${child.signalCode})`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
      async (res) => {
        await res.arrayBuffer();
        return res.ok;
      },
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`server for ${url} was not ready within ${READY_TIMEOUT_MS} ms`);
}

/** Stops a child with SIGTERM, then SIGKILL if it has not exited within STOP_TIMEOUT_MS. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
  if (!stopped) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Runs `use` once `child` answers at `readyUrl`, and stops the child afterwards, also on error. */
async function withServer<T>(child: ChildProcess, readyUrl: string, use: () => Promise<T>): Promise<T> {
  try {
    await waitUntilReady(child, readyUrl);
    return await use();
  } finally {
    await stopChild(child);
  }
}

/** Creates the benchmark's all-scopes key with raised limits through the `svc` CLI, as an operator would. */
async function createKey(dataDir: string): Promise<string> {
  const args = [
    SERVICE_CLI, 'keys', 'create', '--name', 'benchmark', '--scopes', 'all',
    '--rate-limit-per-minute', String(KEY_LIMIT_PER_MINUTE),
    '--rate-limit-per-second', String(KEY_LIMIT_PER_SECOND),
  ];
  const env = { ...process.env, SVC_DATA_DIR: dataDir };
  const { stdout } = await execFileAsync(process.execPath, args, { env, timeout: CLI_TIMEOUT_MS });
  return stdout.trim();
}

/** Creates the meeting to read through the API; checks the key's raised limit is the one applied. */
async function createMeeting(meetingsUrl: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(meetingsUrl, { method: 'POST', headers, body: JSON.stringify({ title: 'Benchmark meeting' }) });
  if (res.status !== 201) throw new Error(`POST ${meetingsUrl} answered ${res.status}: ${await res.text()}`);
  const limit = res.headers.get('X-RateLimit-Limit');
  if (limit !== String(KEY_LIMIT_PER_MINUTE)) {
    throw new Error(`the key's rate limit override is not applied: X-RateLimit-Limit is ${limit}, expected ${KEY_LIMIT_PER_MINUTE}`);
  }
  return ((await res.json()) as { id: string }).id;
}

/** One autocannon run of `scenario` at CONNECTIONS connections. */
function load(scenario: Scenario, seconds: number): Promise<autocannon.Result> {
  const { url, method, headers, body } = scenario;
  return autocannon({ url, method, headers, body, connections: CONNECTIONS, duration: seconds });
}

/** Writes a progress line to stderr, keeping stdout for the results. */
function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Warms the server up with `scenario`, then measures it for `seconds`. */
async function measure(scenario: Scenario, seconds: number): Promise<Measurement> {
  progress(`${scenario.name}: ${WARMUP_SECONDS} s warm-up, ${seconds} s measured`);
  const warmup = await load(scenario, WARMUP_SECONDS);
  const result = await load(scenario, seconds);
  return {
    name: scenario.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: warmup.errors + result.errors,
    non2xx: warmup.non2xx + result.non2xx,
  };
}

/** Measures the bare Express handler, run in a child process of its own. */
async function measureBare(seconds: number): Promise<Measurement> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawnNode([...process.execArgv, __filename, BARE_SERVER_ROLE], { ...process.env, PORT: String(port) });
  return withServer(child, url, () => measure({ name: 'bare Express 5 handler (GET)', url, method: 'GET' }, seconds));
}

/** Environment of the service under test: loopback only, fresh data directory, warnings only. */
function serviceEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    SVC_BASE_URL: `http://127.0.0.1:${port}`,
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'warn',
  };
}

/** Measures authenticated GET and POST of meetings on the built service, started on a fresh data directory. */
async function measureService(seconds: number): Promise<Measurement[]> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-'));
  tempDirs.add(dataDir);
  try {
    const key = await createKey(dataDir);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const meetingsUrl = `${baseUrl}/api/v1/public/meetings`;
    const auth = { authorization: `Bearer ${key}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const child = spawnNode([SERVICE_MAIN], serviceEnv(dataDir, port));
    return await withServer(child, `${baseUrl}/healthz`, async () => {
      const id = await createMeeting(meetingsUrl, json);
      const body = JSON.stringify({ title: 'Benchmark meeting' });
      return [
        await measure({ name: 'GET /meetings/{id} (authenticated)', url: `${meetingsUrl}/${id}`, method: 'GET', headers: auth }, seconds),
        await measure({ name: 'POST /meetings (authenticated)', url: meetingsUrl, method: 'POST', headers: json, body }, seconds),
      ];
    });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    tempDirs.delete(dataDir);
  }
}

/** `value` as a whole percentage. */
function percent(value: number): string {
  return `${Math.round(value * 100)} %`;
}

/** The results as a markdown table, with each throughput relative to the bare handler's. */
function formatTable(measurements: Measurement[], bare: Measurement): string {
  const rows = measurements.map(
    (m) =>
      `| ${m.name} | ${Math.round(m.requestsPerSecond)} | ${m.p50Ms} | ${m.p99Ms} | ` +
      `${percent(m.requestsPerSecond / bare.requestsPerSecond)} | ${m.errors} / ${m.non2xx} |`,
  );
  return [
    '| scenario | req/s | p50 ms | p99 ms | vs bare | errors / non-2xx |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

/** One line per target of the authenticated GET, saying whether it is met. */
function formatTargets(get: Measurement, bare: Measurement): string {
  const ratio = get.requestsPerSecond / bare.requestsPerSecond;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  return [
    `- GET req/s >= ${percent(TARGET_GET_RATIO)} of bare: ${verdict(ratio >= TARGET_GET_RATIO)} (${percent(ratio)})`,
    `- GET p99 < ${TARGET_GET_P99_MS} ms: ${verdict(get.p99Ms < TARGET_GET_P99_MS)} (${get.p99Ms} ms)`,
  ].join('\n');
}

/** Runs the baseline and the service scenarios one after the other and prints the report; exits 1 on any error or non-2xx. */
async function main(): Promise<void> {
  cleanUpOnExit();
  const seconds = measuredSeconds();
  const bare = await measureBare(seconds);
  const service = await measureService(seconds);
  const [get] = service;
  const all = [bare, ...service];
  process.stdout.write(
    `\n${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${seconds} s measured per scenario; ` +
      `Node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'})\n\n` +
      `${formatTable(all, bare)}\n\nTargets (authenticated GET):\n${formatTargets(get!, bare)}\n`,
  );
  const failed = all.filter((m) => m.errors + m.non2xx > 0);
  if (failed.length > 0) {
    process.stderr.write(`\nFAILED: errors or non-2xx answers in: ${failed.map((m) => m.name).join(', ')}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[2] === BARE_SERVER_ROLE) {
  runBareServer();
} else {
  main().catch((err: unknown) => {
    process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}
