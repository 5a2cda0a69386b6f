/**
 * What the benchmarks share: child processes and temp directories that are always cleaned up,
 * bounded waits, keep-alive HTTP load loops, percentiles and markdown output. See bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as setImmediatePromise, setTimeout as sleep } from 'node:timers/promises';

/** The repository root. */
export const ROOT = path.resolve(__dirname, '..');

/**
 * The CI smoke (SVC_BENCH_SMOKE=1, bench/smoke.test.ts): every benchmark runs at its smallest size to show
 * that it still runs to the end; its figures mean nothing. A benchmark's own BENCH_* variables still win.
 */
export const SMOKE = process.env.SVC_BENCH_SMOKE === '1';

/** `full`, or `tiny` in the smoke run. */
export function smokeOr<T>(full: T, tiny: T): T {
  return SMOKE ? tiny : full;
}

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
/** A request of a load loop that has no answer within this long counts as an error. */
const REQUEST_TIMEOUT_MS = 10_000;

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/** Writes a progress line to stderr, keeping stdout for the results. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A loopback port that is free right now. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (typeof address !== 'object' || address === null) throw new Error('could not find a free port');
  return address.port;
}

/** Starts `node args` with `env`; its stderr goes to ours, and it is killed if this process exits. */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs the script `file` in a child process under the same loader as this one (e.g. tsx), with `env`. */
export function spawnScript(file: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawnNode([...process.execArgv, file], env);
}

/**
 * Kills every child still running and removes temp directories when this process exits, also on
 * Ctrl+C or SIGTERM; with `deadlineMs`, also ends a run that takes longer than that (exit 1).
 */
export function cleanUpOnExit(deadlineMs?: number): void {
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));
  if (deadlineMs !== undefined) {
    setTimeout(() => {
      process.stderr.write(`\nFAILED: the benchmark did not finish within ${deadlineMs / 1000} s\n`);
      process.exit(1);
    }, deadlineMs).unref();
  }
}

/** A new temp directory, removed at exit unless `removeTempDir` removed it first. */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Removes a directory made by `makeTempDir`. */
export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** user + nice + system jiffies of all CPUs together, from /proc/stat. */
export function machineBusyTicks(): number {
  const [user, nice, system] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 4).map(Number);
  return user! + nice! + system!;
}

/** A process's parent and CPU times in clock ticks (10 ms) from /proc/<pid>/stat; undefined once it has exited. */
export interface ProcStat {
  ppid: number;
  utime: number;
  stime: number;
  /** Times of its children that exited and were waited for. */
  cutime: number;
  cstime: number;
}

/** /proc/<pid>/stat of a process, or undefined when it has exited. */
export function procStat(pid: number | 'self'): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // After the command: state is field 3, ppid 4, utime 14, stime 15, cutime 16, cstime 17 (1-based, so index - 3 here).
    return { ppid: fields[1]!, utime: fields[11]!, stime: fields[12]!, cutime: fields[13]!, cstime: fields[14]! };
  } catch {
    return undefined;
  }
}

/** utime + stime jiffies of a process, with those of its waited-for children when `withChildren`; 0 once it has exited. */
function processTicks(pid: number | 'self', withChildren: boolean): number {
  const stat = procStat(pid);
  if (!stat) return 0;
  return stat.utime + stat.stime + (withChildren ? stat.cutime + stat.cstime : 0);
}

/** CPU jiffies used by this process and the children it runs. */
function ourTicks(): number {
  let ticks = processTicks('self', true);
  for (const child of children) if (child.pid !== undefined) ticks += processTicks(child.pid, false);
  return ticks;
}

/**
 * Starts watching the CPU time other processes use; the returned function gives their share of
 * the whole machine (0..1) since then, or null where /proc is not available. Interrupt time is
 * left out (loopback traffic would count as others' otherwise); the resolution is 10 ms.
 */
export function watchOtherCpu(): () => number | null {
  try {
    const machineBefore = machineBusyTicks();
    const oursBefore = ourTicks();
    const started = performance.now();
    return () => {
      const seconds = (performance.now() - started) / 1000;
      const others = machineBusyTicks() - machineBefore - (ourTicks() - oursBefore);
      return Math.max(0, others / 100 / (seconds * os.availableParallelism()));
    };
  } catch {
    return () => null;
  }
}

/** A share of the machine from watchOtherCpu as a percentage, or "n/a". */
export function otherCpuText(share: number | null): string {
  return share === null ? 'n/a' : percent(share);
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
export async function withServer<T>(child: ChildProcess, readyUrl: string, use: () => Promise<T>): Promise<T> {
  try {
    await waitUntilReady(child, readyUrl);
    return await use();
  } finally {
    await stopChild(child);
  }
}

/** `promise`, or a rejection naming `what` if it has not settled within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Calls `done` every `intervalMs` until it returns true; fails naming `what` after `timeoutMs`. */
export async function pollUntil(done: () => boolean, opts: { intervalMs: number; timeoutMs: number; what: string }): Promise<void> {
  const deadline = performance.now() + opts.timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`${opts.what} did not happen within ${opts.timeoutMs} ms`);
    await sleep(opts.intervalMs);
  }
}

const BREATHE_EVERY_MS = 10;
let lastBreath = performance.now();

/**
 * Yields to the event loop when synchronous work has held it for BREATHE_EVERY_MS; call it in long
 * synchronous loops. Under tsx a signal is relayed to this process, which must acknowledge it
 * within about 30 ms, or tsx kills it with SIGKILL, and then nothing gets cleaned up.
 */
export async function breathe(): Promise<void> {
  if (performance.now() - lastBreath < BREATHE_EVERY_MS) return;
  await setImmediatePromise();
  lastBreath = performance.now();
}

/** Runs a benchmark's main function: a thrown error is reported and makes the exit code 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}

/** The nearest-rank `p`-th percentile (0..100) of `sorted`, which is sorted ascending. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Median, p99 and max of some samples. */
export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** The median, p99 and max of `samples`. */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

/** `value` as a whole percentage. */
export function percent(value: number): string {
  return `${Math.round(value * 100)} %`;
}

/** "met" or "NOT met". */
export function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}

/** A markdown table; columns named in `rightAligned` (by index) are right-aligned. */
export function markdownTable(header: string[], rows: (string | number)[][], rightAligned: number[] = []): string {
  const rule = header.map((_h, i) => (rightAligned.includes(i) ? '---:' : '---'));
  return [header, rule, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** The 1-minute load average when the benchmark started: other work on the machine skews the figures. */
const loadAtStart = os.loadavg()[0]!;

/** A one-line description of this machine for report headers. */
export function machine(): string {
  const smoke = SMOKE ? 'SMOKE RUN (SVC_BENCH_SMOKE=1, tiny sizes: the figures mean nothing); ' : '';
  return `${smoke}Node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${loadAtStart.toFixed(2)} at start`;
}

/** One HTTP request to send in a load loop. */
export interface RequestSpec {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** What came of one request: its status (null for an error or timeout) and ms from issuing it to the answer's last byte. */
export interface Answer {
  status: number | null;
  ms: number;
}

/** Sends one request over `agent`, reads the whole answer, never rejects; ms counts any wait for a free socket. */
export function timedRequest(agent: http.Agent, spec: RequestSpec): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now();
    const headers: Record<string, string> = { ...spec.headers };
    if (spec.body !== undefined) headers['content-length'] = String(Buffer.byteLength(spec.body));
    const req = http.request(spec.url, { method: spec.method, headers, agent });
    const finish = (status: number | null) => resolve({ status, ms: performance.now() - started });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', () => finish(null));
    req.on('response', (res) => {
      res.on('error', () => finish(null));
      res.on('end', () => finish(res.statusCode ?? null));
      res.resume();
    });
    req.end(spec.body);
  });
}

/** What a closed loop of requests measured. */
export interface ClosedLoopResult {
  elapsedMs: number;
  errors: number;
  non2xx: number;
}

/**
 * Sends `total` requests with `concurrency` in flight at all times over as many keep-alive
 * connections (a closed loop, like autocannon's); request i is `specOf(i)`.
 */
export async function closedLoop(opts: {
  total: number;
  concurrency: number;
  specOf: (i: number) => RequestSpec;
}): Promise<ClosedLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  let next = 0;
  let errors = 0;
  let non2xx = 0;
  const loop = async () => {
    while (next < opts.total) {
      const { status } = await timedRequest(agent, opts.specOf(next++));
      if (status === null) errors++;
      else if (status < 200 || status >= 300) non2xx++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: opts.concurrency }, loop));
  const elapsedMs = performance.now() - started;
  agent.destroy();
  return { elapsedMs, errors, non2xx };
}

/** What a fixed-rate run measured; latencies in ms, errors and non-2xx over warm-up and measured run. */
export interface FixedRateResult {
  rate: number;
  achievedRate: number;
  latency: Summary;
  /** How late the generator issued requests compared with the schedule (its own timer jitter), p99. */
  lagP99Ms: number;
  errors: number;
  non2xx: number;
}

/**
 * An open loop at a fixed total rate over `connections` keep-alive connections: requests are
 * issued on an even schedule, `rate` per second, round-robin over the connections, whatever the
 * answers do (a request whose connection is still busy waits for it, and that wait counts in its
 * latency). Unlike autocannon's overallRate, which sends each connection's per-second quota
 * back to back and then idles, this spreads requests evenly over each second.
 */
export async function fixedRate(
  spec: RequestSpec,
  opts: { connections: number; rate: number; warmupSeconds: number; seconds: number },
): Promise<FixedRateResult> {
  const agents = Array.from({ length: opts.connections }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  try {
    const warmup = await paced(spec, agents, opts.rate, opts.warmupSeconds);
    const measured = await paced(spec, agents, opts.rate, opts.seconds);
    return {
      rate: opts.rate,
      achievedRate: measured.answers.length / (measured.elapsedMs / 1000),
      latency: summarize(measured.answers.map((a) => a.ms)),
      lagP99Ms: percentile(
        measured.lags.sort((a, b) => a - b),
        99,
      ),
      errors: [...warmup.answers, ...measured.answers].filter((a) => a.status === null).length,
      non2xx: [...warmup.answers, ...measured.answers].filter((a) => a.status !== null && (a.status < 200 || a.status >= 300)).length,
    };
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

/** Issues `rate * seconds` requests on schedule over `agents`, then waits for every answer. */
async function paced(
  spec: RequestSpec,
  agents: http.Agent[],
  rate: number,
  seconds: number,
): Promise<{ answers: Answer[]; lags: number[]; elapsedMs: number }> {
  const total = Math.round(rate * seconds);
  const intervalMs = 1000 / rate;
  const answers: Promise<Answer>[] = [];
  const lags: number[] = [];
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (answers.length < total && start + answers.length * intervalMs <= now) {
        lags.push(now - (start + answers.length * intervalMs));
        answers.push(timedRequest(agents[answers.length % agents.length]!, spec));
      }
      if (answers.length === total) return resolve();
      setTimeout(tick, Math.max(0, start + answers.length * intervalMs - performance.now()));
    };
    tick();
  });
  const settled = await Promise.all(answers);
  return { answers: settled, lags, elapsedMs: performance.now() - start };
}
