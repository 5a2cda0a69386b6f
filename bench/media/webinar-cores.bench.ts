/**
 * Webinar viewers per machine on one mediasoup worker against every worker of the machine, in one run: one
 * publisher's plain-RTP stream (1,000 pkt/s) into a webinar room (SpanningRoomMedia, as rooms get it), and
 * viewers added in steps, each a plain-RTP consumer, until the loss at the receivers passes 1 % or a worker
 * runs at a full core. With every worker the room spreads its viewers over one router per worker and pipes
 * the publisher's producer to each. Reports the viewers each setup carried within the loss limit, and the
 * workers' CPU per 1,000 forwarded packets. See bench/README.md ("Webinars over every core").
 */
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { roomMediaProvider } from '../../service/src/media/mediasoup-room-media';
import type { SpanningRoomMedia } from '../../service/src/media/spanning-room-media';
import { WorkerPool } from '../../service/src/media/worker-pool';
import { openRtpReceiver, openRtpSink, sendSyntheticRtp, type RtpReceiver } from '../../service/src/testing/plain-rtp';
import { OPUS_RTP } from '../../service/src/testing/rtp-sender';
import { processCpuMs } from '../rtc/fanout';
import {
  cleanUpOnExit,
  machine,
  markdownTable,
  otherCpuText,
  percent,
  pollUntil,
  progress,
  runMain,
  smokeOr,
  verdict,
  watchOtherCpu,
} from '../support';

const RATE = Number(process.env.BENCH_WEBINAR_RATE ?? 1000);
/** Viewers added per step: at least STEP, and GROWTH of the viewers so far (steps of 25 to 250 viewers, then 10 %). */
const STEP = Number(process.env.BENCH_WEBINAR_STEP ?? smokeOr(25, 2));
const GROWTH = 0.1;
/** Rounds of (1 worker, every worker), so that a machine getting busier or quieter weighs on both. */
const ROUNDS = Number(process.env.BENCH_WEBINAR_ROUNDS ?? smokeOr(2, 1));
const MAX_VIEWERS = Number(process.env.BENCH_WEBINAR_MAX ?? smokeOr(1500, 4));
const SECONDS = Number(process.env.BENCH_WEBINAR_SECONDS ?? smokeOr(3, 1));
const WARMUP_SECONDS = 1;
const LOSS_LIMIT = Number(process.env.BENCH_WEBINAR_LOSS ?? 0.01);
/** Every worker of the machine (the "all workers" setup). */
const ALL_WORKERS = Number(process.env.BENCH_WEBINAR_WORKERS ?? os.availableParallelism());
/** A worker at this share of one core counts as saturated: the step ends the setup's run. */
const SATURATED = 0.97;
/** Viewers whose packets the benchmark counts; the others send to a socket nobody reads, so counting costs little. */
const COUNTED = 8;
/** Viewers added at once (placement is one at a time inside the room anyway). */
const BATCH = 25;
const TARGET_VIEWERS_RATIO = 1.8;
const TARGET_COST_RATIO = 1.2;
const RUN_DEADLINE_MS = 15 * 60_000;
/** The WebRtcServers' ports (plain and pipe transports take any free port). */
const WEBRTC_PORTS = { minPort: 29_800, maxPort: 29_899 };
const SSRC = 0x5eed_0002;

/** One measured window at a viewer count. */
interface Step {
  viewers: number;
  perShard: number[];
  /** 1 - arrived / expected at the counted receivers. */
  loss: number;
  /** Packets the consumers sent / (in x viewers), by the workers' own count. */
  forwardedRatio: number;
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
  const sink = await openRtpSink();
  process.once('exit', () => sink.close());
  const counted: { receiver: RtpReceiver; ssrc: number }[] = [];
  const media = (await roomMediaProvider(pool).create(`webinar-${workers}`, { kind: 'webinar' })) as SpanningRoomMedia;
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
    const receiver = i < COUNTED ? await openRtpReceiver() : undefined;
    const transport = await media.createPlainTransport(peerId, 'recv', '127.0.0.1');
    await media.connectPlainTransport(peerId, transport.id, receiver?.address ?? sink.address);
    const consumer = await media.consume(peerId, producerId, media.rtpCapabilities);
    if (!consumer) throw new Error(`${peerId} could not consume the publisher`);
    await media.setConsumerPaused(peerId, consumer.id, false);
    const ssrc = (consumer.rtpParameters as { encodings: { ssrc: number }[] }).encodings[0]!.ssrc;
    if (receiver) counted.push({ receiver, ssrc });
  };
  const snapshot = async () => ({
    forwarded: await media.packetsSentToConsumers(),
    sent: stream.sent(),
    arrived: counted.reduce((sum, c) => sum + c.receiver.packets(c.ssrc), 0),
    cpuMs: pids.map(processCpuMs),
    at: performance.now(),
  });

  let viewers = 0;
  const window = async (): Promise<Step> => {
    const others = watchOtherCpu();
    const before = await snapshot();
    await sleep(SECONDS * 1000);
    const after = await snapshot();
    const seconds = (after.at - before.at) / 1000;
    const sent = after.sent - before.sent;
    const forwarded = after.forwarded - before.forwarded;
    const cpu = after.cpuMs.map((ms, i) => ms - before.cpuMs[i]!);
    const workerShares = cpu.map((ms) => ms / 1000 / seconds);
    const otherShare = others();
    return {
      viewers,
      perShard: media.peersPerShard().map((n, i) => (i === 0 ? n - 1 : n)), // the publisher is on the home shard
      loss: Math.max(0, 1 - (after.arrived - before.arrived) / (sent * counted.length)),
      forwardedRatio: forwarded / (sent * viewers),
      workerShares,
      cpuMsPer1000: cpu.reduce((a, b) => a + b, 0) / (forwarded / 1000),
      otherCpu: otherShare === null ? null : Math.max(0, otherShare - workerShares.reduce((a, b) => a + b, 0) / os.availableParallelism()),
    };
  };

  const steps: Step[] = [];
  let end = `reached BENCH_WEBINAR_MAX (${MAX_VIEWERS} viewers)`;
  try {
    while (viewers < MAX_VIEWERS) {
      const target = Math.min(MAX_VIEWERS, viewers + Math.max(STEP, Math.round(viewers * GROWTH)));
      while (viewers < target) {
        const batch = Array.from({ length: Math.min(BATCH, target - viewers) }, (_v, k) => viewers + k);
        await Promise.all(batch.map(addViewer));
        viewers += batch.length;
      }
      const flowing = await pollUntil(() => counted.every((c) => c.receiver.packets(c.ssrc) > 0), {
        intervalMs: 20,
        timeoutMs: 10_000,
        what: 'a packet at every counted viewer',
      }).then(
        () => true,
        () => false,
      );
      if (!flowing) {
        end = `a counted viewer got no packet within 10 s at ${viewers} viewers`;
        break;
      }
      await sleep(WARMUP_SECONDS * 1000);
      let step = await window();
      // A window over the limit is measured once more (other processes share the machine): the better one counts.
      if (step.loss > LOSS_LIMIT || Math.max(...step.workerShares) >= SATURATED) {
        const again = await window();
        if (again.loss <= step.loss) step = again;
      }
      steps.push(step);
      const { workerShares } = step;
      progress(
        `${workers} worker(s), ${viewers} viewers: loss ${(step.loss * 100).toFixed(2)} %, workers ${workerShares.map(percent).join(' + ')}, ` +
          `${step.cpuMsPer1000.toFixed(2)} ms / 1000 pkt`,
      );
      if (step.loss > LOSS_LIMIT) {
        end = `loss ${(step.loss * 100).toFixed(1)} % at ${viewers} viewers`;
        break;
      }
      if (Math.max(...workerShares) >= SATURATED) {
        end = `a worker at ${percent(Math.max(...workerShares))} of a core at ${viewers} viewers`;
        break;
      }
    }
  } finally {
    stream.stop();
    media.close();
    for (const c of counted) c.receiver.close();
    sink.close();
    await pool.close();
  }
  return { round, workers, steps, end };
}

/** The largest viewer count whose window stayed within the loss limit with no saturated worker. */
function carried(run: Run): Step | undefined {
  return run.steps.filter((s) => s.loss <= LOSS_LIMIT && Math.max(...s.workerShares) < SATURATED).at(-1);
}

/** One round's verdicts: viewers carried on every worker against one, and CPU per packet at the largest count both carried. */
function comparison(round: number, [one, all]: Run[]): string[] {
  const oneCarried = one && carried(one);
  const allCarried = all && carried(all);
  if (!one || !all || !oneCarried || !allCarried) return [`- round ${round}: no comparison (a setup carried no step)`];
  const ratio = allCarried.viewers / oneCarried.viewers;
  const capped = all.end.startsWith('reached') ? ' (the all-workers run hit the maximum: at least this)' : '';
  const lines = [
    `- round ${round}: viewers on ${all.workers} workers / 1 worker within the loss limit: ${allCarried.viewers} / ${oneCarried.viewers} = ` +
      `${ratio.toFixed(2)}x${capped}; target >= ${TARGET_VIEWERS_RATIO}x: ${verdict(ratio >= TARGET_VIEWERS_RATIO)}`,
  ];
  const common = Math.min(oneCarried.viewers, allCarried.viewers);
  const a = one.steps.find((s) => s.viewers === common);
  const b = all.steps.find((s) => s.viewers === common);
  if (a && b) {
    const cost = b.cpuMsPer1000 / a.cpuMsPer1000;
    lines.push(
      `- round ${round}: worker CPU per 1,000 forwarded packets at ${common} viewers: ${b.cpuMsPer1000.toFixed(2)} ms on ${all.workers} workers / ` +
        `${a.cpuMsPer1000.toFixed(2)} ms on 1 = ${cost.toFixed(2)}x; target <= ${TARGET_COST_RATIO}x: ${verdict(cost <= TARGET_COST_RATIO)}`,
    );
    // What the workers would carry with a core each, from their CPU per packet (derived, not measured).
    const perCore = (ms: number) => Math.floor(1000 / ((ms * RATE) / 1000));
    lines.push(
      `- round ${round}: derived from the CPU per packet, with a core per worker: ${perCore(a.cpuMsPer1000)} viewers on 1 worker, ` +
        `${all.workers * perCore(b.cpuMsPer1000)} on ${all.workers} (${((all.workers * a.cpuMsPer1000) / b.cpuMsPer1000).toFixed(2)}x)`,
    );
  }
  return lines;
}

function report(runs: Run[]): string {
  const header = [
    'round',
    'workers',
    'viewers',
    'viewers per router',
    'loss at receivers',
    'forwarded / (in x viewers)',
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
      `${(s.forwardedRatio * 100).toFixed(1)} %`,
      s.workerShares.map(percent).join(' + '),
      s.cpuMsPer1000.toFixed(2),
      otherCpuText(s.otherCpu),
    ]),
  );
  const lines = [
    `Webinar fan-out, one publisher at ${RATE} pkt/s of 172-byte RTP to N plain-RTP viewers on loopback, viewers added in steps of max(${STEP}, ${GROWTH * 100} %), ` +
      `${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per step, loss counted at ${COUNTED} viewers; ${machine()}`,
    '',
    markdownTable(header, rows, [0, 1, 2, 4, 5, 7]),
    '',
  ];
  for (const run of runs)
    lines.push(
      `- round ${run.round}, ${run.workers} worker(s): stopped at ${run.end}; carried ${carried(run)?.viewers ?? 0} viewers within ${percent(LOSS_LIMIT)} loss`,
    );
  for (let round = 1; round <= ROUNDS; round++)
    lines.push(
      ...comparison(
        round,
        runs.filter((run) => run.round === round),
      ),
    );
  return `\n${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  for (const [name, value] of Object.entries({ STEP, MAX_VIEWERS, RATE, ALL_WORKERS, ROUNDS }))
    if (!Number.isInteger(value) || value < 1) throw new Error(`bad ${name}: ${value}`);
  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++)
    for (const workers of [...new Set([1, ALL_WORKERS])]) runs.push(await measureSetup(round, workers));
  process.stdout.write(report(runs));
}

runMain(main);
