/**
 * Webinar viewers per machine on one mediasoup worker against every worker of the machine, in one run: one
 * publisher's plain-RTP stream (1,000 pkt/s) into a webinar room (SpanningRoomMedia, as rooms get it), and
 * viewers added in steps, each a plain-RTP consumer, until the loss passes 1 %. The viewers sit behind a stand-in
 * for the network card (wire.ts): what the workers send to them is counted by the kernel as it leaves, and no
 * receiver shares the cores with the workers. With every worker the room spreads its viewers over one router per
 * worker and pipes the publisher's producer to each. Reports the viewers each setup carried within the loss limit,
 * and the workers' CPU per 1,000 forwarded packets. See bench/README.md ("Webinars over every core").
 */
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { roomMediaProvider } from '../../service/src/media/mediasoup-room-media';
import type { SpanningRoomMedia } from '../../service/src/media/spanning-room-media';
import { WorkerPool } from '../../service/src/media/worker-pool';
import { sendSyntheticRtp } from '../../service/src/testing/plain-rtp';
import { OPUS_RTP } from '../../service/src/testing/rtp-sender';
import { processCpuMs } from '../rtc/fanout';
import {
  cleanUpOnExit,
  machine,
  markdownTable,
  otherCpuText,
  percent,
  progress,
  runMain,
  smokeOr,
  verdict,
  watchOtherCpu,
} from '../support';
import { inOwnNetworkNamespace, WIRE, wirePackets } from './wire';

const RATE = Number(process.env.BENCH_WEBINAR_RATE ?? 1000);
/** Viewers added per step: at least STEP, and GROWTH of the viewers so far (steps of 25 to 250 viewers, then 10 %). */
const STEP = Number(process.env.BENCH_WEBINAR_STEP ?? smokeOr(25, 2));
const GROWTH = 0.1;
/** Rounds of both setups, in turn first (so that a machine getting busier or quieter weighs on both); the verdicts take their median. */
const ROUNDS = Number(process.env.BENCH_WEBINAR_ROUNDS ?? smokeOr(3, 1));
const MAX_VIEWERS = Number(process.env.BENCH_WEBINAR_MAX ?? smokeOr(1500, 4));
const SECONDS = Number(process.env.BENCH_WEBINAR_SECONDS ?? smokeOr(3, 1));
const WARMUP_SECONDS = 1;
const LOSS_LIMIT = Number(process.env.BENCH_WEBINAR_LOSS ?? 0.01);
/** Every worker of the machine (the "all workers" setup). */
const ALL_WORKERS = Number(process.env.BENCH_WEBINAR_WORKERS ?? os.availableParallelism());
/** Halvings of the gap between the last viewer count within the loss limit and the first over it. */
const REFINEMENTS = Number(process.env.BENCH_WEBINAR_REFINEMENTS ?? smokeOr(3, 1));
/** Viewers added at once (placement is one at a time inside the room anyway). */
const BATCH = 25;
const TARGET_VIEWERS_RATIO = 1.8;
const TARGET_COST_RATIO = 1.2;
const RUN_DEADLINE_MS = 15 * 60_000;
/** The WebRtcServers' ports (plain and pipe transports take any free port). */
const WEBRTC_PORTS = { minPort: 29_800, maxPort: 29_899 };
const SSRC = 0x5eed_0002;
/** Any port: the wire takes every packet sent to its remote address. */
const VIEWER_PORT = 5004;

/** One measured window at a viewer count. */
interface Step {
  viewers: number;
  perShard: number[];
  /** 1 - packets that left for the viewers / (packets the publisher sent x viewers). */
  loss: number;
  /** Each worker's CPU as a share of one core. */
  workerShares: number[];
  /** All workers' CPU per 1,000 packets sent to viewers (the pipe's copies are cost, not output). */
  cpuMsPer1000: number;
  otherCpu: number | null;
}

interface Run {
  round: number;
  workers: number;
  steps: Step[];
  /** Why the run stopped. */
  end: string;
}

async function measureSetup(round: number, workers: number): Promise<Run> {
  const pool = await WorkerPool.start({ workers, ...WEBRTC_PORTS, listenIp: '127.0.0.1', logLevel: 'error' });
  const media = (await roomMediaProvider(pool).create(`webinar-${round}-${workers}`, { kind: 'webinar' })) as SpanningRoomMedia;
  const pids = pool.health().map((w) => w.pid!);
  const send = await media.createPlainTransport('publisher', 'send', '127.0.0.1');
  const producerId = await media.produce('publisher', {
    transportId: send.id,
    kind: 'audio',
    rtpParameters: { ...OPUS_RTP, encodings: [{ ssrc: SSRC }] },
    source: 'microphone',
    paused: false,
  });
  const stream = await sendSyntheticRtp(send.local, { ssrc: SSRC, payloadType: 111, packetsPerSecond: RATE });

  const addViewer = async (i: number): Promise<void> => {
    const peerId = `viewer-${i}`;
    const transport = await media.createPlainTransport(peerId, 'recv', WIRE.localIp);
    await media.connectPlainTransport(peerId, transport.id, { ip: WIRE.remoteIp, port: VIEWER_PORT });
    const consumer = await media.consume(peerId, producerId, media.rtpCapabilities);
    if (!consumer) throw new Error(`${peerId} could not consume the publisher`);
    await media.setConsumerPaused(peerId, consumer.id, false);
  };
  const snapshot = () => ({ left: wirePackets(), sent: stream.sent(), cpuMs: pids.map(processCpuMs), at: performance.now() });

  let viewers = 0;
  const window = async (): Promise<Step> => {
    const others = watchOtherCpu();
    const before = snapshot();
    await sleep(SECONDS * 1000);
    const after = snapshot();
    const seconds = (after.at - before.at) / 1000;
    const left = after.left - before.left;
    const cpu = after.cpuMs.map((ms, i) => ms - before.cpuMs[i]!);
    const workerShares = cpu.map((ms) => ms / 1000 / seconds);
    const otherShare = others();
    return {
      viewers,
      perShard: media.peersPerShard().map((n, i) => (i === 0 ? n - 1 : n)), // the publisher is on the home shard
      loss: Math.max(0, 1 - left / ((after.sent - before.sent) * viewers)),
      workerShares,
      cpuMsPer1000: cpu.reduce((a, b) => a + b, 0) / (left / 1000),
      otherCpu: otherShare === null ? null : Math.max(0, otherShare - workerShares.reduce((a, b) => a + b, 0) / os.availableParallelism()),
    };
  };

  const setViewers = async (count: number): Promise<void> => {
    for (let i = count; i < viewers; i++) media.closePeer(`viewer-${i}`);
    while (viewers < count) {
      const batch = Array.from({ length: Math.min(BATCH, count - viewers) }, (_v, k) => viewers + k);
      await Promise.all(batch.map(addViewer));
      viewers += batch.length;
    }
    viewers = count;
  };
  const steps: Step[] = [];
  const measure = async (count: number): Promise<Step> => {
    await setViewers(count);
    await sleep(WARMUP_SECONDS * 1000);
    let step = await window();
    // A window over the limit is measured once more (other processes may share the machine): the better one counts.
    if (step.loss > LOSS_LIMIT) {
      const again = await window();
      if (again.loss <= step.loss) step = again;
    }
    steps.push(step);
    progress(
      `${workers} worker(s), ${count} viewers: loss ${(step.loss * 100).toFixed(2)} %, workers ${step.workerShares.map(percent).join(' + ')}, ` +
        `${step.cpuMsPer1000.toFixed(2)} ms / 1000 pkt`,
    );
    return step;
  };

  let end = `reached BENCH_WEBINAR_MAX (${MAX_VIEWERS} viewers)`;
  try {
    let within = 0;
    while (viewers < MAX_VIEWERS) {
      const count = Math.min(MAX_VIEWERS, viewers + Math.max(STEP, Math.round(viewers * GROWTH)));
      const step = await measure(count);
      if (step.loss <= LOSS_LIMIT) {
        within = count;
        continue;
      }
      end = `loss ${(step.loss * 100).toFixed(1)} % at ${count} viewers`;
      // Halve the gap between the last count within the limit and the first over it, so that a step's size hides
      // little of the capacity.
      let over = count;
      for (let i = 0; i < REFINEMENTS && over - within > 2; i++) {
        const middle = Math.round((within + over) / 2);
        if ((await measure(middle)).loss <= LOSS_LIMIT) within = middle;
        else over = middle;
      }
      break;
    }
  } finally {
    stream.stop();
    media.close();
    await pool.close();
  }
  return { round, workers, steps, end };
}

/** The largest viewer count whose window stayed within the loss limit. */
function carried(run: Run): Step | undefined {
  return run.steps
    .filter((s) => s.loss <= LOSS_LIMIT)
    .sort((a, b) => a.viewers - b.viewers)
    .at(-1);
}

/** One round's verdict lines, and its two ratios when it has them. */
interface Comparison {
  lines: string[];
  viewersRatio?: number;
  costRatio?: number;
}

/** One round's verdicts: viewers carried on every worker against one, and CPU per packet at the largest count both carried. */
function comparison(round: number, runs: Run[]): Comparison {
  const one = runs.find((run) => run.workers === 1);
  const all = runs.find((run) => run.workers === ALL_WORKERS);
  const oneCarried = one && carried(one);
  const allCarried = all && carried(all);
  if (!one || !all || !oneCarried || !allCarried) return { lines: [`- round ${round}: no comparison (a setup carried no step)`] };
  if (one.end.startsWith('reached'))
    return { lines: [`- round ${round}: no comparison (1 worker carried the maximum: raise BENCH_WEBINAR_MAX)`] };
  const ratio = allCarried.viewers / oneCarried.viewers;
  const capped = all.end.startsWith('reached') ? ' (the all-workers run hit the maximum: at least this)' : '';
  const lines = [
    `- round ${round}: viewers on ${all.workers} workers / 1 worker within the loss limit: ${allCarried.viewers} / ${oneCarried.viewers} = ` +
      `${ratio.toFixed(3)}x${capped}; target >= ${TARGET_VIEWERS_RATIO}x: ${verdict(ratio >= TARGET_VIEWERS_RATIO)}`,
  ];
  // The largest viewer count both setups measured within the limit.
  const within = (run: Run, viewers: number) => run.steps.find((s) => s.viewers === viewers && s.loss <= LOSS_LIMIT);
  const a = carried({ ...one, steps: one.steps.filter((s) => within(all, s.viewers)) });
  const b = a && within(all, a.viewers);
  if (!a || !b) return { lines, viewersRatio: ratio };
  const cost = b.cpuMsPer1000 / a.cpuMsPer1000;
  lines.push(
    `- round ${round}: worker CPU per 1,000 forwarded packets at ${a.viewers} viewers: ${b.cpuMsPer1000.toFixed(2)} ms on ${all.workers} workers / ` +
      `${a.cpuMsPer1000.toFixed(2)} ms on 1 = ${cost.toFixed(2)}x; target <= ${TARGET_COST_RATIO}x: ${verdict(cost <= TARGET_COST_RATIO)}`,
  );
  // What the workers would carry with a core each, from their CPU per packet (derived, not measured).
  const perCore = (ms: number) => Math.floor(1000 / ((ms * RATE) / 1000));
  lines.push(
    `- round ${round}: derived from the CPU per packet, with a core per worker: ${perCore(a.cpuMsPer1000)} viewers on 1 worker, ` +
      `${all.workers * perCore(b.cpuMsPer1000)} on ${all.workers} (${((all.workers * a.cpuMsPer1000) / b.cpuMsPer1000).toFixed(2)}x)`,
  );
  return { lines, viewersRatio: ratio, costRatio: cost };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function report(runs: Run[]): string {
  const header = [
    'round',
    'workers',
    'viewers',
    'viewers per router',
    'loss on the wire',
    'worker CPU (one core each)',
    'worker CPU ms / 1000 pkt',
    'other CPU',
  ];
  const rows = runs.flatMap((run) =>
    run.steps.map((s) => [
      run.round,
      run.workers,
      s.viewers,
      s.perShard.join(' + '),
      `${(s.loss * 100).toFixed(2)} %`,
      s.workerShares.map(percent).join(' + '),
      s.cpuMsPer1000.toFixed(2),
      otherCpuText(s.otherCpu),
    ]),
  );
  const lines = [
    `Webinar fan-out, one publisher at ${RATE} pkt/s of 172-byte RTP to N plain-RTP viewers behind a stand-in network card, viewers added in steps of ` +
      `max(${STEP}, ${GROWTH * 100} %), ${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per step; ${machine()}`,
    '',
    markdownTable(header, rows, [0, 1, 2, 4, 6]),
    '',
  ];
  for (const run of runs)
    lines.push(
      `- round ${run.round}, ${run.workers} worker(s): stopped at ${run.end}; carried ${carried(run)?.viewers ?? 0} viewers within ${percent(LOSS_LIMIT)} loss`,
    );
  const comparisons = Array.from({ length: ROUNDS }, (_r, i) =>
    comparison(
      i + 1,
      runs.filter((run) => run.round === i + 1),
    ),
  );
  for (const c of comparisons) lines.push(...c.lines);
  const viewers = comparisons.flatMap((c) => (c.viewersRatio === undefined ? [] : [c.viewersRatio]));
  const costs = comparisons.flatMap((c) => (c.costRatio === undefined ? [] : [c.costRatio]));
  if (viewers.length > 0)
    lines.push(
      `- median of ${viewers.length} round(s): viewers ${median(viewers).toFixed(3)}x; target >= ${TARGET_VIEWERS_RATIO}x: ` +
        verdict(median(viewers) >= TARGET_VIEWERS_RATIO),
    );
  if (costs.length > 0)
    lines.push(
      `- median of ${costs.length} round(s): CPU per packet ${median(costs).toFixed(2)}x; target <= ${TARGET_COST_RATIO}x: ` +
        verdict(median(costs) <= TARGET_COST_RATIO),
    );
  return `\n${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  if (!inOwnNetworkNamespace()) return;
  cleanUpOnExit(RUN_DEADLINE_MS);
  for (const [name, value] of Object.entries({ STEP, MAX_VIEWERS, RATE, ALL_WORKERS, ROUNDS }))
    if (!Number.isInteger(value) || value < 1) throw new Error(`bad ${name}: ${value}`);
  if (!Number.isInteger(REFINEMENTS) || REFINEMENTS < 0) throw new Error(`bad REFINEMENTS: ${REFINEMENTS}`);
  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const setups = [...new Set([1, ALL_WORKERS])];
    for (const workers of round % 2 === 1 ? setups : setups.reverse()) runs.push(await measureSetup(round, workers));
  }
  process.stdout.write(report(runs));
}

runMain(main);
