/**
 * Throughput and latency of the public API's authenticated GET and POST of a meeting, each compared
 * with a bare Express 5 handler measured in the same run on the same machine: at saturation (50
 * connections in a closed loop) and, for the GET and the bare handler, at fixed rates below
 * saturation over the same 50 connections. See bench/README.md.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import {
  ROOT,
  cleanUpOnExit,
  fixedRate,
  freePort,
  machine,
  makeTempDir,
  markdownTable,
  otherCpuText,
  percent,
  progress,
  removeTempDir,
  runMain,
  smokeOr,
  spawnNode,
  verdict,
  watchOtherCpu,
  withServer,
  type FixedRateResult,
  type RequestSpec,
} from '../support';
import { withBareServer } from './bare-server';

const SERVICE_MAIN = path.join(ROOT, 'service', 'dist', 'main.js');
const SERVICE_CLI = path.join(ROOT, 'service', 'bin', 'svc.js');

const CONNECTIONS = 50;
const WARMUP_SECONDS = smokeOr(3, 1);
const DEFAULT_DURATION_SECONDS = smokeOr(10, 1);
/** Total requests per second of the fixed-rate runs: below what both servers sustain here. */
const DEFAULT_FIXED_RATES = smokeOr([1000, 2000], [100]);
const CLI_TIMEOUT_MS = 30_000;
/**
 * Each scenario's key's own limits ("higher limits by agreement"): the most `svc keys create` accepts. A
 * scenario sends at most about 13 s x 5,000 req/s here; the minute limit holds up to about 16,000 req/s sustained.
 */
const KEY_LIMIT_PER_SECOND = 1_000_000;
const KEY_LIMIT_PER_MINUTE = 1_000_000;
const TARGET_GET_RATIO = 0.5;
const TARGET_GET_P99_MS = 10;

/** One kind of request to load a server with. */
interface Scenario extends RequestSpec {
  name: string;
}

/** What one scenario measured at saturation; errors and non-2xx answers count warm-up and measured run. */
interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** Share of the machine's CPU that other processes used meanwhile (null where unknown). */
  otherCpu: number | null;
}

/** What one scenario measured at the fixed rate. */
interface FixedRateMeasurement extends FixedRateResult {
  name: string;
  otherCpu: number | null;
}

/** The measurements of a scenario that has fixed-rate runs. */
interface Measured {
  saturation: Measurement;
  /** One per rate, in the order of Settings.rates. */
  fixed: FixedRateMeasurement[];
}

/** The run's settings. */
interface Settings {
  seconds: number;
  rates: number[];
}

const execFileAsync = promisify(execFile);

/** Comma-separated positive integers from the environment variable `name`, or `fallback`. */
function positiveIntegers(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map(Number);
  if (!values.every((v) => Number.isInteger(v) && v >= 1))
    throw new Error(`${name} must be positive integers, comma-separated, got "${raw}"`);
  return values;
}

/** Seconds of each measured run (BENCH_DURATION, or 10) and the fixed total rates (BENCH_RATE, or 1000,2000 req/s). */
function settings(): Settings {
  const seconds = positiveIntegers('BENCH_DURATION', [DEFAULT_DURATION_SECONDS]);
  if (seconds.length !== 1) throw new Error(`BENCH_DURATION must be one positive integer (seconds), got "${process.env.BENCH_DURATION}"`);
  return { seconds: seconds[0]!, rates: positiveIntegers('BENCH_RATE', DEFAULT_FIXED_RATES) };
}

/** Creates an all-scopes key with raised limits through the `svc` CLI, as an operator would. */
async function createKey(dataDir: string, name: string): Promise<string> {
  const args = [
    SERVICE_CLI,
    'keys',
    'create',
    '--name',
    name,
    '--scopes',
    'all',
    '--rate-limit-per-minute',
    String(KEY_LIMIT_PER_MINUTE),
    '--rate-limit-per-second',
    String(KEY_LIMIT_PER_SECOND),
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

/** Warms the server up with `scenario`, then measures it at saturation for `seconds`. */
async function measure(scenario: Scenario, seconds: number): Promise<Measurement> {
  progress(`${scenario.name}: saturation, ${WARMUP_SECONDS} s warm-up, ${seconds} s measured`);
  const otherCpu = watchOtherCpu();
  const warmup = await load(scenario, WARMUP_SECONDS);
  const result = await load(scenario, seconds);
  return {
    otherCpu: otherCpu(),
    name: scenario.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: warmup.errors + result.errors,
    non2xx: warmup.non2xx + result.non2xx,
  };
}

/** Measures `scenario` at a fixed total rate over CONNECTIONS connections, after a warm-up at the same rate. */
async function measureFixedRate(scenario: Scenario, seconds: number, rate: number): Promise<FixedRateMeasurement> {
  progress(`${scenario.name}: ${rate} req/s, ${WARMUP_SECONDS} s warm-up, ${seconds} s measured`);
  const otherCpu = watchOtherCpu();
  const result = await fixedRate(scenario, { connections: CONNECTIONS, rate, warmupSeconds: WARMUP_SECONDS, seconds });
  return { name: scenario.name, ...result, otherCpu: otherCpu() };
}

/** The measurements of `scenario`: saturation first, then each fixed rate. */
async function measureBoth(scenario: Scenario, run: Settings): Promise<Measured> {
  const saturation = await measure(scenario, run.seconds);
  const fixed: FixedRateMeasurement[] = [];
  for (const rate of run.rates) fixed.push(await measureFixedRate(scenario, run.seconds, rate));
  return { saturation, fixed };
}

/** Measures the bare Express handler, run in a child process of its own. */
async function measureBare(run: Settings): Promise<Measured> {
  return withBareServer((url) => measureBoth({ name: 'bare Express 5 handler (GET)', url, method: 'GET' }, run));
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

/** Measures authenticated GET (both ways) and POST (saturation) of meetings on the built service, started on a fresh data directory. */
async function measureService(run: Settings): Promise<{ get: Measured; post: Measurement }> {
  const dataDir = await makeTempDir('svc-bench-');
  try {
    // One key per scenario, so that each has the whole minute limit to itself.
    const getKey = await createKey(dataDir, 'benchmark GET');
    const postKey = await createKey(dataDir, 'benchmark POST');
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const meetingsUrl = `${baseUrl}/api/v1/public/meetings`;
    const auth = { authorization: `Bearer ${getKey}` };
    const json = { authorization: `Bearer ${postKey}`, 'content-type': 'application/json' };
    const child = spawnNode([SERVICE_MAIN], serviceEnv(dataDir, port));
    return await withServer(child, `${baseUrl}/healthz`, async () => {
      const id = await createMeeting(meetingsUrl, json);
      const body = JSON.stringify({ title: 'Benchmark meeting' });
      const get = await measureBoth(
        { name: 'GET /meetings/{id} (authenticated)', url: `${meetingsUrl}/${id}`, method: 'GET', headers: auth },
        run,
      );
      const post = await measure(
        { name: 'POST /meetings (authenticated)', url: meetingsUrl, method: 'POST', headers: json, body },
        run.seconds,
      );
      return { get, post };
    });
  } finally {
    await removeTempDir(dataDir);
  }
}

/** The saturation results as a markdown table, with each throughput relative to the bare handler's. */
function formatSaturation(measurements: Measurement[], bare: Measurement): string {
  return markdownTable(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', 'errors / non-2xx', 'other CPU'],
    measurements.map((m) => [
      m.name,
      Math.round(m.requestsPerSecond),
      m.p50Ms,
      m.p99Ms,
      percent(m.requestsPerSecond / bare.requestsPerSecond),
      `${m.errors} / ${m.non2xx}`,
      otherCpuText(m.otherCpu),
    ]),
    [1, 2, 3, 4, 5, 6],
  );
}

/** The fixed-rate results as a markdown table; latencies to 0.1 ms. */
function formatFixedRate(measurements: FixedRateMeasurement[]): string {
  const ms = (value: number) => value.toFixed(1);
  return markdownTable(
    ['scenario', 'rate req/s', 'achieved req/s', 'p50 ms', 'p99 ms', 'max ms', 'client lag p99 ms', 'errors / non-2xx', 'other CPU'],
    measurements.map((m) => [
      m.name,
      m.rate,
      Math.round(m.achievedRate),
      ms(m.latency.p50),
      ms(m.latency.p99),
      ms(m.latency.max),
      ms(m.lagP99Ms),
      `${m.errors} / ${m.non2xx}`,
      otherCpuText(m.otherCpu),
    ]),
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
}

/** One line per target of the authenticated GET, saying whether it is met. */
function formatTargets(get: Measured, bare: Measured): string {
  const ratio = get.saturation.requestsPerSecond / bare.saturation.requestsPerSecond;
  return [
    `- GET req/s >= ${percent(TARGET_GET_RATIO)} of bare (saturation): ${verdict(ratio >= TARGET_GET_RATIO)} (${(ratio * 100).toFixed(1)} %)`,
    ...get.fixed.map(
      (f) =>
        `- GET p99 < ${TARGET_GET_P99_MS} ms at ${f.rate} req/s over ${CONNECTIONS} connections: ` +
        `${verdict(f.latency.p99 < TARGET_GET_P99_MS)} (${f.latency.p99.toFixed(1)} ms)`,
    ),
    `- GET p99 < ${TARGET_GET_P99_MS} ms at saturation (${CONNECTIONS} connections, closed loop): ` +
      `${verdict(get.saturation.p99Ms < TARGET_GET_P99_MS)} (${get.saturation.p99Ms} ms)`,
  ].join('\n');
}

/** Runs the baseline and the service scenarios one after the other and prints the report; exits 1 on any error or non-2xx. */
async function main(): Promise<void> {
  cleanUpOnExit();
  const run = settings();
  const bare = await measureBare(run);
  const { get, post } = await measureService(run);
  const saturation = [bare.saturation, get.saturation, post];
  const fixed = run.rates.flatMap((_rate, i) => [bare.fixed[i]!, get.fixed[i]!]);
  process.stdout.write(
    `\n${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${run.seconds} s measured per run; ${machine()}\n\n` +
      `Saturation (closed loop, autocannon):\n\n${formatSaturation(saturation, bare.saturation)}\n\n` +
      `Fixed rate (open loop, the rate in total, evenly spaced over the connections):\n\n${formatFixedRate(fixed)}\n\n` +
      `Targets (authenticated GET):\n${formatTargets(get, bare)}\n`,
  );
  const failed = [...saturation, ...fixed].filter((m) => m.errors + m.non2xx > 0);
  if (failed.length > 0) {
    process.stderr.write(`\nFAILED: errors or non-2xx answers in: ${failed.map((m) => m.name).join(', ')}\n`);
    process.exitCode = 1;
  }
}

runMain(main);
