/**
 * (a) Signed deliveries per second of the real DeliveryWorker to the counting receiver at 1, 10 and
 * 100 endpoints, against two keep-alive client loops at the same concurrency: one of bare signed POSTs
 * (the headers the worker sends, signed afresh per request) and one of plain unsigned POSTs; in rounds
 * that interleave the endpoint counts; each row gives the medians over the rounds.
 */
import { newWebhookSecret, signDelivery, verifyWebhook } from '@svc/connectors';
import type { Config } from '../../service/src/config';
import type { Db } from '../../service/src/db/connection';
import { SENDER_USER_AGENT } from '../../service/src/outbox/http-sender';
import { createDeliveryWorker } from '../../service/src/services';
import {
  breathe,
  closedLoop,
  markdownTable,
  otherCpuText,
  percent,
  pollUntil,
  progress,
  smokeOr,
  summarize,
  verdict,
  watchOtherCpu,
} from '../support';
import { countRows, openInstance, register, seedEndpoints, stopWorker, workerSettings } from './instance';
import { receiverStats, withReceiver, type Sample } from './receiver';
import type { Checks, Subject } from './subject';

/** Endpoint counts, and signed deliveries per run (a multiple of every count); BENCH_DELIVERIES overrides. */
const ENDPOINT_COUNTS = [1, 10, 100] as const;
const DEFAULT_DELIVERIES = smokeOr(6_000, 100);
/** Rounds of worker-then-baseline runs per endpoint count; the ratio is the median of the rounds' ratios. */
const ROUNDS = smokeOr(5, 1);
/** An unreported run first, so JIT warm-up does not land on the first measured row. */
const WARMUP_ENDPOINTS = 10;
const WARMUP_DELIVERIES = smokeOr(1_000, 100);
const DRAIN_TIMEOUT_MS = 60_000;
const DRAIN_POLL_MS = 10;
const TARGET_DELIVERIES_PER_SECOND = 500;
/** Issue 14: one endpoint's signed deliveries reach at least this share of the bare signed POST loop's rate. */
const TARGET_SINGLE_ENDPOINT_SHARE = 0.5;

/** What one throughput run measured. */
interface RunResult {
  ms: number;
  cpuUs: number;
}

/** One round's worker run and its two baseline runs for one endpoint count. */
interface Round {
  worker: RunResult;
  /** Bare signed POSTs: what a signed webhook costs without the worker's durability and scheduling. */
  signed: RunResult;
  /** Plain unsigned POSTs of the same body with only a content type: the HTTP client alone. */
  plain: RunResult;
  /** Share of the machine's CPU that other processes used during both runs. */
  otherCpu: number | null;
}

/** Throughput of the worker and of the baseline for one endpoint count, over every round. */
interface ThroughputRow {
  endpoints: number;
  events: number;
  deliveries: number;
  concurrency: number;
  rounds: Round[];
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

/** Whether any delivery is not done yet: one seek into each partial index, so polling costs the measured worker nothing. */
function deliveriesLeft(db: Db): () => boolean {
  const stmt = db.prepare<[], { left: number }>(
    `SELECT EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending') OR
            EXISTS (SELECT 1 FROM deliveries WHERE status = 'delivering') AS left`,
  );
  return () => stmt.get()!.left === 1;
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

    const left = deliveriesLeft(db);
    const worker = createDeliveryWorker(services, inst.config, inst.logger);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let ms: number;
    try {
      worker.start();
      await pollUntil(() => !left(), {
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

/**
 * A baseline: as many POSTs of the same body, round-robin over the same URLs, from a keep-alive client loop at
 * `concurrency`; `signed` ones carry the headers the worker sends, signed afresh per request with a secret per URL.
 */
async function runBaseline(
  checks: Checks,
  receiverUrl: string,
  endpoints: number,
  deliveries: number,
  concurrency: number,
  payload: string,
  signed: boolean,
): Promise<RunResult> {
  const name = signed ? 'signed' : 'plain';
  const secrets = signed ? Array.from({ length: endpoints }, () => newWebhookSecret()) : [];
  const eventId = (JSON.parse(payload) as { id: string }).id;
  const headersOf = (i: number): Record<string, string> =>
    signed
      ? {
          ...signDelivery({
            secrets: [secrets[i % endpoints]!],
            eventId,
            eventType: 'registration.created',
            deliveryId: `dlv_bench${i}`,
            timestamp: Math.floor(Date.now() / 1000),
            rawBody: payload,
          }),
          'User-Agent': SENDER_USER_AGENT,
        }
      : { 'content-type': 'application/json' };
  const receiverBase = new URL(receiverUrl).origin;
  const before = await receiverStats(receiverBase);
  const cpuBefore = process.cpuUsage();
  const result = await closedLoop({
    total: deliveries,
    concurrency,
    specOf: (i) => ({ url: `${receiverUrl}/hook/${i % endpoints}`, method: 'POST', headers: headersOf(i), body: payload }),
  });
  const cpu = process.cpuUsage(cpuBefore);
  const after = await receiverStats(receiverBase);
  checks.check(
    result.errors + result.non2xx === 0,
    `${name} baseline at ${endpoints} endpoints: ${result.errors} errors, ${result.non2xx} non-2xx answers`,
  );
  checks.check(
    after.count - before.count === deliveries,
    `${name} baseline at ${endpoints} endpoints: the receiver got ${after.count - before.count} requests, expected ${deliveries}`,
  );
  return { ms: result.elapsedMs, cpuUs: cpu.user + cpu.system };
}

/** The attempts the worker can have in flight with `endpoints` busy endpoints. */
function workerConcurrency(settings: Config['webhooks'], endpoints: number): number {
  return Math.min(settings.concurrency, settings.perEndpointConcurrency * endpoints);
}

/**
 * ROUNDS rounds, each running every endpoint count: the worker, then both baselines at the worker's concurrency, to
 * the receiver in a child process. Interleaving spreads a burst of other work on this machine over every row.
 */
async function measureThroughput(checks: Checks, deliveries: number, settings: Config['webhooks']): Promise<ThroughputRow[]> {
  return withReceiver(async (receiverUrl) => {
    progress(`(a) warm-up: ${WARMUP_DELIVERIES} deliveries to ${WARMUP_ENDPOINTS} endpoints, worker and baselines`);
    const warm = await runWorker(checks, receiverUrl, WARMUP_ENDPOINTS, WARMUP_DELIVERIES);
    const warmConcurrency = workerConcurrency(settings, WARMUP_ENDPOINTS);
    for (const signed of [true, false]) {
      await runBaseline(checks, receiverUrl, WARMUP_ENDPOINTS, WARMUP_DELIVERIES, warmConcurrency, warm.payload, signed);
    }
    const rows: ThroughputRow[] = ENDPOINT_COUNTS.map((endpoints) => ({
      endpoints,
      events: deliveries / endpoints,
      deliveries,
      concurrency: workerConcurrency(settings, endpoints),
      rounds: [],
    }));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const row of rows) {
        progress(
          `(a) round ${round}/${ROUNDS}: ${deliveries} deliveries to ${row.endpoints} endpoint(s), worker, then baselines at concurrency ${row.concurrency}`,
        );
        const otherCpu = watchOtherCpu();
        const worker = await runWorker(checks, receiverUrl, row.endpoints, deliveries);
        const baseline = (signed: boolean) =>
          runBaseline(checks, receiverUrl, row.endpoints, deliveries, row.concurrency, worker.payload, signed);
        const signed = await baseline(true);
        const plain = await baseline(false);
        row.rounds.push({ worker, signed, plain, otherCpu: otherCpu() });
      }
    }
    return rows;
  });
}

/** The median (nearest rank) of the values. */
function median(values: number[]): number {
  return summarize(values).p50;
}

/** Deliveries (or POSTs) per second of a run. */
function perSecond(deliveries: number, run: RunResult): number {
  return deliveries / (run.ms / 1000);
}

/** Each round's worker rate divided by the rate of its `baseline` run. */
function ratios(row: ThroughputRow, baseline: 'signed' | 'plain'): number[] {
  return row.rounds.map((r) => r[baseline].ms / r.worker.ms);
}

/** The rows as a markdown table, one row per endpoint count, medians over the rounds. */
function formatThroughput(rows: ThroughputRow[]): string {
  const medianOf = (row: ThroughputRow, value: (r: Round) => number) => Math.round(median(row.rounds.map(value)));
  const shareText = (shares: number[]) => `${percent(median(shares))} (${shares.map(percent).join(', ')})`;
  return markdownTable(
    [
      'endpoints',
      'events × endpoints',
      'max in flight',
      'worker deliveries/s',
      'worker CPU µs/delivery',
      'signed loop POSTs/s',
      'signed loop CPU µs/POST',
      'worker vs signed loop (rounds)',
      'plain loop POSTs/s',
      'worker vs plain loop (rounds)',
      'other CPU (highest)',
    ],
    rows.map((row) => {
      const others = row.rounds.map((r) => r.otherCpu).filter((c): c is number => c !== null);
      return [
        row.endpoints,
        `${row.events} × ${row.endpoints}`,
        row.concurrency,
        medianOf(row, (r) => perSecond(row.deliveries, r.worker)),
        medianOf(row, (r) => r.worker.cpuUs / row.deliveries),
        medianOf(row, (r) => perSecond(row.deliveries, r.signed)),
        medianOf(row, (r) => r.signed.cpuUs / row.deliveries),
        shareText(ratios(row, 'signed')),
        medianOf(row, (r) => perSecond(row.deliveries, r.plain)),
        shareText(ratios(row, 'plain')),
        otherCpuText(others.length === 0 ? null : Math.max(...others)),
      ];
    }),
    [0, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
}

/** The target lines: the slowest endpoint count against TARGET_DELIVERIES_PER_SECOND, one endpoint against the bare signed loop. */
function formatTargets(rows: ThroughputRow[]): string {
  const rateOf = (row: ThroughputRow) => median(row.rounds.map((r) => perSecond(row.deliveries, r.worker)));
  const slowest = rows.reduce((a, b) => (rateOf(a) <= rateOf(b) ? a : b));
  const single = rows.find((row) => row.endpoints === 1)!;
  const share = median(ratios(single, 'signed'));
  return [
    `- >= ${TARGET_DELIVERIES_PER_SECOND} signed deliveries/s at every endpoint count: ` +
      `${verdict(rateOf(slowest) >= TARGET_DELIVERIES_PER_SECOND)} (lowest: ${Math.round(rateOf(slowest))}/s at ${slowest.endpoints} endpoint(s))`,
    `- one endpoint >= ${percent(TARGET_SINGLE_ENDPOINT_SHARE)} of the bare signed POST loop (median of ${ROUNDS} rounds): ` +
      `${verdict(share >= TARGET_SINGLE_ENDPOINT_SHARE)} (${percent(share)}; ${percent(median(ratios(single, 'plain')))} of the plain loop)`,
  ].join('\n');
}

/** (a) Delivery throughput, worker against the two baseline loops. */
export const throughput: Subject = {
  name: 'throughput',
  async run(checks) {
    const deliveries = deliveriesPerRun();
    const rows = await measureThroughput(checks, deliveries, workerSettings());
    return {
      section:
        `(a) Delivery throughput, ${deliveries} signed deliveries per run, medians of ${ROUNDS} rounds, ` +
        `receiver in a child process answering 204:\n\n` +
        formatThroughput(rows),
      target: formatTargets(rows),
    };
  },
};
