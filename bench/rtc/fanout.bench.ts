/**
 * Plain-RTP fan-out through one mediasoup worker: one producer at a fixed packet rate forwarded to
 * N = 10, 50 and 200 consumers on loopback; packets forwarded per second and worker CPU per 1,000
 * packets. This run measures a bare router (the baseline the room layer will be compared with).
 * See bench/rtc/README.md.
 */
import os from 'node:os';
import { WorkerPool } from '../../service/src/media/worker-pool';
import { cleanUpOnExit, machine, markdownTable, otherCpuText, percent, progress, runMain, watchOtherCpu } from '../support';
import { bareRouterFanout } from './bare-router';
import { measureFanout, RTP_PACKET_BYTES, type FanoutResult, type FanoutRun } from './fanout';

const CONSUMER_COUNTS = (process.env.BENCH_RTC_CONSUMERS ?? '10,50,200').split(',').map(Number);
const PACKETS_PER_SECOND = Number(process.env.BENCH_RTC_RATE ?? 1000);
const WARMUP_SECONDS = 1;
const SECONDS = Number(process.env.BENCH_RTC_SECONDS ?? 5);
const RUN_DEADLINE_MS = 3 * 60_000;
/** RTC ports of the single worker's WebRtcServer (unused by plain transports, which take any free port). */
const WEBRTC_PORTS = { minPort: 29_900, maxPort: 29_999 };

interface Row {
  result: FanoutResult;
  otherCpu: number | null;
}

function rowCells({ result, otherCpu }: Row): (string | number)[] {
  return [
    result.consumers,
    Math.round(result.sentPerSecond),
    Math.round(result.forwardedPerSecond),
    `${(result.forwardedRatio * 100).toFixed(1)} %`,
    Math.round(result.arrivedPerSecond),
    result.workerCpuMsPer1000.toFixed(2),
    percent(result.workerCoreShare),
    otherCpuText(otherCpu),
  ];
}

async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  for (const count of CONSUMER_COUNTS)
    if (!Number.isInteger(count) || count < 1) throw new Error(`bad BENCH_RTC_CONSUMERS: ${CONSUMER_COUNTS.join(',')}`);
  const pool = await WorkerPool.start({ workers: 1, ...WEBRTC_PORTS, listenIp: '127.0.0.1', logLevel: 'error' });
  const rows: Row[] = [];
  try {
    const setup = bareRouterFanout(pool);
    for (const consumers of CONSUMER_COUNTS) {
      const run: FanoutRun = { consumers, packetsPerSecond: PACKETS_PER_SECOND, warmupSeconds: WARMUP_SECONDS, seconds: SECONDS };
      progress(`bare router: 1 producer -> ${consumers} consumers at ${PACKETS_PER_SECOND} pkt/s for ${SECONDS} s`);
      const otherCpu = watchOtherCpu();
      const result = await measureFanout(setup, run);
      // The worker is not a child the support code knows of, so its CPU shows up as "other"; take it out.
      const others = otherCpu();
      rows.push({ result, otherCpu: others === null ? null : Math.max(0, others - result.workerCoreShare / os.availableParallelism()) });
    }
  } finally {
    await pool.close();
  }
  process.stdout.write(
    `\nPlain-RTP fan-out through one mediasoup worker (bare router), ${PACKETS_PER_SECOND} pkt/s of ${RTP_PACKET_BYTES}-byte RTP in, ` +
      `${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per row, loopback; ${machine()}\n\n` +
      markdownTable(
        [
          'consumers',
          'in pkt/s',
          'forwarded pkt/s',
          'forwarded / (in x consumers)',
          'arrived pkt/s',
          'worker CPU ms / 1000 pkt',
          'worker CPU (one core)',
          'other CPU',
        ],
        rows.map(rowCells),
        [0, 1, 2, 3, 4, 5, 6, 7],
      ) +
      '\n',
  );
}

runMain(main);
