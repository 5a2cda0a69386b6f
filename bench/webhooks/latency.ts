/**
 * (b) Event to first attempt: how long an event takes to reach an in-process receiver when the
 * delivery worker is started and idle.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDeliveryWorker } from '../../service/src/services';
import { markdownTable, otherCpuText, pollUntil, progress, smokeOr, summarize, verdict, watchOtherCpu, type Summary } from '../support';
import { countRows, listeningPort, openInstance, register, seedEndpoints, stopWorker } from './instance';
import type { Checks, Subject } from './subject';

/** Events emitted one at a time, this far apart, to an idle worker. */
const LATENCY_EVENTS = smokeOr(200, 10);
const LATENCY_GAP_MS = 20;
const ARRIVAL_TIMEOUT_MS = 10_000;
const TARGET_LATENCY_P99_MS = 250;

/** The latencies, in ms, and the share of the machine's CPU other processes used meanwhile. */
interface LatencyResult {
  latency: Summary;
  otherCpu: number | null;
}

/**
 * With the worker started and idle, emits LATENCY_EVENTS events one at a time, LATENCY_GAP_MS
 * apart, to one endpoint on an in-process receiver; latency = arrival of the delivery's body at
 * the receiver - the moment before the emitting call, both on this process's performance.now().
 */
async function measureLatency(checks: Checks): Promise<LatencyResult> {
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      try {
        const email = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { registration: { email: string } } }).data
          .registration.email;
        if (arrivals.has(email)) duplicates++;
        else arrivals.set(email, at);
      } catch (err) {
        checks.check(false, `latency: a delivery's body is not a registration.created event: ${(err as Error).message}`);
      }
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  const port = await listeningPort(server, 'the latency receiver');
  const inst = await openInstance('svc-bench-latency-');
  try {
    seedEndpoints(inst, `http://127.0.0.1:${port}`, 1);
    const worker = createDeliveryWorker(inst.services, inst.config, inst.logger);
    const emitted = new Map<string, number>();
    const otherCpu = watchOtherCpu();
    try {
      worker.start();
      await sleep(200);
      progress(`(b) ${LATENCY_EVENTS} events, ${LATENCY_GAP_MS} ms apart, to an idle worker`);
      for (let n = 0; n < LATENCY_EVENTS; n++) {
        emitted.set(`attendee-${n}@example.com`, performance.now());
        register(inst, n);
        await sleep(LATENCY_GAP_MS);
      }
      await pollUntil(() => arrivals.size === LATENCY_EVENTS, {
        intervalMs: 10,
        timeoutMs: ARRIVAL_TIMEOUT_MS,
        what: `the arrival of ${LATENCY_EVENTS} deliveries`,
      });
    } finally {
      await stopWorker(worker);
    }
    const succeeded = countRows(inst.db, "SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'");
    checks.check(succeeded === LATENCY_EVENTS, `latency: ${succeeded} of ${LATENCY_EVENTS} deliveries succeeded`);
    checks.check(duplicates === 0, `latency: ${duplicates} deliveries arrived twice`);
    return { latency: summarize([...emitted].map(([email, at]) => arrivals.get(email)! - at)), otherCpu: otherCpu() };
  } finally {
    server.closeAllConnections();
    server.close();
    await inst.close();
  }
}

/** The latencies as a markdown table. */
function formatLatency({ latency, otherCpu }: LatencyResult): string {
  const ms = (value: number) => value.toFixed(1);
  return markdownTable(
    ['events', 'gap ms', 'p50 ms', 'p99 ms', 'max ms', 'other CPU'],
    [[latency.count, LATENCY_GAP_MS, ms(latency.p50), ms(latency.p99), ms(latency.max), otherCpuText(otherCpu)]],
    [0, 1, 2, 3, 4, 5],
  );
}

/** (b) Event-to-first-attempt latency with an idle worker. */
export const latency: Subject = {
  name: 'latency',
  async run(checks) {
    const result = await measureLatency(checks);
    const { p99 } = result.latency;
    return {
      section: `(b) Event-to-first-attempt latency, idle worker, one endpoint, receiver in-process:\n\n${formatLatency(result)}`,
      target: `- event-to-first-attempt p99 < ${TARGET_LATENCY_P99_MS} ms when idle: ${verdict(p99 < TARGET_LATENCY_P99_MS)} (${p99.toFixed(1)} ms)`,
    };
  },
};
