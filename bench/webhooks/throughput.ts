/**
 * (a) Signed deliveries per second of the real DeliveryWorker to the counting receiver at 1, 10 and
 * 100 endpoints, against plain unsigned POSTs from a keep-alive client loop at the same concurrency.
 */
import { verifyWebhook } from '@svc/connectors';
import type { Config } from '../../service/src/config';
import type { Db } from '../../service/src/db/connection';
import { createDeliveryWorker } from '../../service/src/services';
import { breathe, closedLoop, markdownTable, otherCpuText, percent, pollUntil, progress, verdict, watchOtherCpu } from '../support';
import { countRows, openInstance, register, seedEndpoints, stopWorker, workerSettings } from './instance';
import { receiverStats, withReceiver, type Sample } from './receiver';
import type { Checks, Subject } from './subject';

/** Endpoint counts, and signed deliveries per run (a multiple of every count); BENCH_DELIVERIES overrides. */
const ENDPOINT_COUNTS = [1, 10, 100] as const;
const DEFAULT_DELIVERIES = 6_000;
/** An unreported run first, so JIT warm-up does not land on the first measured row. */
const WARMUP_ENDPOINTS = 10;
const WARMUP_DELIVERIES = 1_000;
const DRAIN_TIMEOUT_MS = 60_000;
const DRAIN_POLL_MS = 10;
const TARGET_DELIVERIES_PER_SECOND = 500;

/** What one throughput run measured. */
interface RunResult {
  ms: number;
  cpuUs: number;
}

/** Throughput of the worker and of the baseline for one endpoint count. */
interface ThroughputRow {
  endpoints: number;
  events: number;
  deliveries: number;
  concurrency: number;
  worker: RunResult;
  baseline: RunResult;
  /** Share of the machine's CPU that other processes used during both runs. */
  otherCpu: number | null;
}

/** Signed deliveries per run: BENCH_DELIVERIES (a multiple of 100), or 6000. */
function deliveriesPerRun(): number {
  const raw = process.env.BENCH_DELIVERIES;
  if (raw === undefined || raw === '') return DEFAULT_DELIVERIES;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 100 || value % 100 !== 0)
    throw new Error(`BENCH_DELIVERIES must be a positive multiple of 100, got "${raw}"`);
  return value;
}

/** Counts the deliveries not done yet; both counts walk a partial index, so polling stays cheap. */
function remainingDeliveries(db: Db): () => number {
  const stmt = db.prepare<[], { n: number }>(
    `SELECT (SELECT count(*) FROM deliveries WHERE status = 'pending') +
            (SELECT count(*) FROM deliveries WHERE status = 'delivering') AS n`,
  );
  return () => stmt.get()!.n;
}

/**
 * Queues `deliveries` signed deliveries (deliveries / endpoints events) on a fresh instance, then
 * times the real worker with the real httpSender from start() until none is pending or being
 * delivered, and checks every one succeeded with one attempt, arrived once, and is signed.
 */
async function runWorker(
  checks: Checks,
  receiverUrl: string,
  endpoints: number,
  deliveries: number,
): Promise<RunResult & { payload: string }> {
  const inst = await openInstance('svc-bench-webhooks-');
  try {
    const { db, services } = inst;
    const secrets = seedEndpoints(inst, receiverUrl, endpoints);
    for (let n = 0; n < deliveries / endpoints; n++) {
      register(inst, n);
      await breathe();
    }
    checks.check(
      countRows(db, "SELECT count(*) AS n FROM deliveries WHERE status = 'pending'") === deliveries,
      `${endpoints} endpoints: ${deliveries} deliveries queued`,
    );
    const payload = (db.prepare('SELECT payload FROM events LIMIT 1').get() as { payload: string }).payload;
    const receiverBase = new URL(receiverUrl).origin;
    const before = await receiverStats(receiverBase);

    const remaining = remainingDeliveries(db);
    const worker = createDeliveryWorker(services, inst.config, inst.logger);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let ms: number;
    try {
      worker.start();
      await pollUntil(() => remaining() === 0, {
        intervalMs: DRAIN_POLL_MS,
        timeoutMs: DRAIN_TIMEOUT_MS,
        what: `delivering ${deliveries} deliveries to ${endpoints} endpoints`,
      });
      ms = performance.now() - started;
    } finally {
      await stopWorker(worker);
    }
    const cpu = process.cpuUsage(cpuBefore);

    const succeeded = countRows(db, "SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded' AND attempt_count = 1");
    checks.check(
      succeeded === deliveries,
      `${endpoints} endpoints: ${succeeded} of ${deliveries} deliveries succeeded at the first attempt`,
    );
    const attempts = countRows(db, 'SELECT count(*) AS n FROM delivery_attempts WHERE status_code = 204');
    checks.check(attempts === deliveries, `${endpoints} endpoints: ${attempts} attempts answered 204, expected ${deliveries}`);
    const after = await receiverStats(receiverBase);
    checks.check(
      after.count - before.count === deliveries,
      `${endpoints} endpoints: the receiver got ${after.count - before.count} requests, expected ${deliveries}`,
    );
    verifySample(checks, after.sample, secrets, endpoints);
    return { ms, cpuUs: cpu.user + cpu.system, payload };
  } finally {
    await inst.close();
  }
}

/** Checks the receiver's last request carries a valid signature of its endpoint's secret. */
function verifySample(checks: Checks, sample: Sample | null, secrets: Map<string, string>, endpoints: number): void {
  const secret = sample && secrets.get(sample.path);
  if (!sample || !secret) return checks.check(false, `${endpoints} endpoints: the receiver kept no delivery of this run to verify`);
  try {
    const event = verifyWebhook({ rawBody: sample.body, headers: sample.headers as Record<string, string>, secrets: secret });
    checks.check(event.type === 'registration.created', `${endpoints} endpoints: the verified delivery is a ${event.type} event`);
  } catch (err) {
    checks.check(false, `${endpoints} endpoints: a delivery's signature does not verify: ${(err as Error).message}`);
  }
}

/** The baseline: as many plain unsigned POSTs of the same body, round-robin over the same URLs, from a keep-alive client loop at `concurrency`. */
async function runBaseline(
  checks: Checks,
  receiverUrl: string,
  endpoints: number,
  deliveries: number,
  concurrency: number,
  payload: string,
): Promise<RunResult> {
  const receiverBase = new URL(receiverUrl).origin;
  const before = await receiverStats(receiverBase);
  const cpuBefore = process.cpuUsage();
  const result = await closedLoop({
    total: deliveries,
    concurrency,
    specOf: (i) => ({
      url: `${receiverUrl}/hook/${i % endpoints}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: payload,
    }),
  });
  const cpu = process.cpuUsage(cpuBefore);
  const after = await receiverStats(receiverBase);
  checks.check(
    result.errors + result.non2xx === 0,
    `baseline at ${endpoints} endpoints: ${result.errors} errors, ${result.non2xx} non-2xx answers`,
  );
  checks.check(
    after.count - before.count === deliveries,
    `baseline at ${endpoints} endpoints: the receiver got ${after.count - before.count} requests, expected ${deliveries}`,
  );
  return { ms: result.elapsedMs, cpuUs: cpu.user + cpu.system };
}

/** The attempts the worker can have in flight with `endpoints` busy endpoints. */
function workerConcurrency(settings: Config['webhooks'], endpoints: number): number {
  return Math.min(settings.concurrency, settings.perEndpointConcurrency * endpoints);
}

/** For each endpoint count: the worker, then the baseline at the worker's concurrency, to the receiver in a child process. */
async function measureThroughput(checks: Checks, deliveries: number, settings: Config['webhooks']): Promise<ThroughputRow[]> {
  return withReceiver(async (receiverUrl) => {
    progress(`(a) warm-up: ${WARMUP_DELIVERIES} deliveries to ${WARMUP_ENDPOINTS} endpoints, worker and baseline`);
    const warm = await runWorker(checks, receiverUrl, WARMUP_ENDPOINTS, WARMUP_DELIVERIES);
    const warmConcurrency = workerConcurrency(settings, WARMUP_ENDPOINTS);
    await runBaseline(checks, receiverUrl, WARMUP_ENDPOINTS, WARMUP_DELIVERIES, warmConcurrency, warm.payload);
    const rows: ThroughputRow[] = [];
    for (const endpoints of ENDPOINT_COUNTS) {
      const concurrency = workerConcurrency(settings, endpoints);
      progress(`(a) ${deliveries} deliveries to ${endpoints} endpoint(s): worker, then baseline at concurrency ${concurrency}`);
      const otherCpu = watchOtherCpu();
      const worker = await runWorker(checks, receiverUrl, endpoints, deliveries);
      const baseline = await runBaseline(checks, receiverUrl, endpoints, deliveries, concurrency, worker.payload);
      rows.push({ endpoints, events: deliveries / endpoints, deliveries, concurrency, worker, baseline, otherCpu: otherCpu() });
    }
    return rows;
  });
}

/** The rows as a markdown table, one row per endpoint count. */
function formatThroughput(rows: ThroughputRow[]): string {
  const perSecond = (n: number, r: RunResult) => Math.round(n / (r.ms / 1000));
  return markdownTable(
    [
      'endpoints',
      'events × endpoints',
      'max in flight',
      'worker deliveries/s',
      'worker CPU µs/delivery',
      'baseline POSTs/s',
      'baseline CPU µs/POST',
      'worker vs baseline',
      'other CPU',
    ],
    rows.map((r) => [
      r.endpoints,
      `${r.events} × ${r.endpoints}`,
      r.concurrency,
      perSecond(r.deliveries, r.worker),
      Math.round(r.worker.cpuUs / r.deliveries),
      perSecond(r.deliveries, r.baseline),
      Math.round(r.baseline.cpuUs / r.deliveries),
      percent(r.baseline.ms / r.worker.ms),
      otherCpuText(r.otherCpu),
    ]),
    [0, 2, 3, 4, 5, 6, 7, 8],
  );
}

/** The target line: the slowest endpoint count against TARGET_DELIVERIES_PER_SECOND. */
function formatTarget(rows: ThroughputRow[]): string {
  const slowest = rows.reduce((a, b) => (a.deliveries / a.worker.ms <= b.deliveries / b.worker.ms ? a : b));
  const slowestRate = Math.round(slowest.deliveries / (slowest.worker.ms / 1000));
  return (
    `- >= ${TARGET_DELIVERIES_PER_SECOND} signed deliveries/s at every endpoint count: ` +
    `${verdict(slowestRate >= TARGET_DELIVERIES_PER_SECOND)} (lowest: ${slowestRate}/s at ${slowest.endpoints} endpoint(s))`
  );
}

/** (a) Delivery throughput, worker against baseline. */
export const throughput: Subject = {
  name: 'throughput',
  async run(checks) {
    const deliveries = deliveriesPerRun();
    const rows = await measureThroughput(checks, deliveries, workerSettings());
    return {
      section:
        `(a) Delivery throughput, ${deliveries} signed deliveries per row, receiver in a child process answering 204:\n\n` +
        formatThroughput(rows),
      target: formatTarget(rows),
    };
  },
};
