/**
 * Plain-RTP fan-out through one mediasoup worker, rooms against a bare router in one run: one producer
 * at a fixed packet rate forwarded to N = 10, 50 and 200 consumers on loopback, each N measured
 * bare, rooms, rooms, bare so that drift cancels; packets forwarded per second, worker CPU per 1,000
 * packets and its ratio, and the largest N that keeps the worker under one core. See bench/rtc/README.md.
 */
import os from 'node:os';
import { WorkerPool } from '../../service/src/media/worker-pool';
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
import { bareRouterFanout } from './bare-router';
import { measureFanout, RTP_PACKET_BYTES, type FanoutResult, type FanoutSetup } from './fanout';
import { roomFanout, startRoomsCore } from './room-fanout';

const CONSUMER_COUNTS = (process.env.BENCH_RTC_CONSUMERS ?? smokeOr('10,50,200', '2')).split(',').map(Number);
const PACKETS_PER_SECOND = Number(process.env.BENCH_RTC_RATE ?? 1000);
const WARMUP_SECONDS = 1;
const SECONDS = Number(process.env.BENCH_RTC_SECONDS ?? smokeOr(5, 1));
const CONFIRM = process.env.BENCH_RTC_CONFIRM === '1';
const RUN_DEADLINE_MS = 6 * 60_000;
/** RTC ports of the single worker's WebRtcServer (unused by plain transports, which take any free port). */
const WEBRTC_PORTS = { minPort: 29_900, maxPort: 29_999 };
/** The target for the room layer's CPU per packet against the bare router. */
const TARGET_RATIO = 1.5;
/** More consumer sockets than this in the benchmark process would measure the benchmark, not the worker. */
const MAX_CONFIRM_CONSUMERS = 1000;

type Side = 'bare' | 'rooms';

/** One measured window with the share of the machine other processes used meanwhile. */
interface Measured {
  result: FanoutResult;
  otherCpu: number | null;
}

/** Several windows of one setup at one N, added up. */
interface Totals {
  seconds: number;
  sent: number;
  forwarded: number;
  arrived: number;
  cpuMs: number;
  otherCpu: number | null;
}

function totals(runs: Measured[]): Totals {
  const sum = (of: (m: Measured) => number) => runs.reduce((acc, m) => acc + of(m), 0);
  const others = runs.map((m) => m.otherCpu);
  return {
    seconds: sum((m) => m.result.seconds),
    sent: sum((m) => m.result.sentPerSecond * m.result.seconds),
    forwarded: sum((m) => m.result.forwardedPerSecond * m.result.seconds),
    arrived: sum((m) => m.result.arrivedPerSecond * m.result.seconds),
    cpuMs: sum((m) => m.result.workerCoreShare * 1000 * m.result.seconds),
    otherCpu: others.includes(null) ? null : Math.max(...(others as number[])),
  };
}

const cpuPer1000 = (t: Totals) => t.cpuMs / (t.forwarded / 1000);
const forwardedRatio = (t: Totals, consumers: number) => t.forwarded / (t.sent * consumers);

async function measure(side: Side, setup: FanoutSetup, consumers: number): Promise<Measured> {
  progress(`${side}: 1 producer -> ${consumers} consumers at ${PACKETS_PER_SECOND} pkt/s for ${SECONDS} s`);
  const otherCpu = watchOtherCpu();
  const result = await measureFanout(setup, {
    consumers,
    packetsPerSecond: PACKETS_PER_SECOND,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
  });
  // The worker is not a child the support code knows of, so its CPU shows up as "other"; take it out.
  const others = otherCpu();
  return { result, otherCpu: others === null ? null : Math.max(0, others - result.workerCoreShare / os.availableParallelism()) };
}

/** Both setups at one N, in the order bare, rooms, rooms, bare. */
interface Row {
  consumers: number;
  bare: Measured[];
  rooms: Measured[];
}

function ratioOf(rooms: Measured, bare: Measured): number {
  return rooms.result.workerCpuMsPer1000 / bare.result.workerCpuMsPer1000;
}

function rowCells({ consumers, bare, rooms }: Row): (string | number)[] {
  const b = totals(bare);
  const r = totals(rooms);
  const perPair = [ratioOf(rooms[0]!, bare[0]!), ratioOf(rooms[1]!, bare[1]!)].map((x) => `${x.toFixed(2)}x`).join(', ');
  const both = (of: (t: Totals) => string) => `${of(b)} / ${of(r)}`;
  return [
    consumers,
    Math.round(r.sent / r.seconds),
    both((t) => Math.round(t.forwarded / t.seconds).toLocaleString('en-US')),
    both((t) => `${(forwardedRatio(t, consumers) * 100).toFixed(1)} %`),
    both((t) => Math.round(t.arrived / t.seconds).toLocaleString('en-US')),
    both((t) => cpuPer1000(t).toFixed(2)),
    `${(cpuPer1000(r) / cpuPer1000(b)).toFixed(2)}x (${perPair})`,
    both((t) => percent(t.cpuMs / 1000 / t.seconds)),
    both((t) => otherCpuText(t.otherCpu)),
    `${Math.round(Math.max(...bare.map((m) => m.result.setupMs)))} / ${Math.round(Math.max(...rooms.map((m) => m.result.setupMs)))}`,
  ];
}

/** The largest N whose forwarding at `rate` packets/s in fits one core, at `msPer1000` of worker CPU per 1,000 forwarded packets. */
function largestN(msPer1000: number, rate: number): number {
  return Math.floor(1000 / ((msPer1000 * rate) / 1000));
}

function report(rows: Row[], confirm: { consumers: number; measured: Measured } | undefined): string {
  const header = [
    'consumers',
    'in pkt/s',
    'forwarded pkt/s bare / rooms',
    'forwarded / (in x consumers) bare / rooms',
    'arrived pkt/s bare / rooms',
    'worker CPU ms / 1000 pkt bare / rooms',
    'rooms / bare CPU per pkt (per pair)',
    'worker CPU (one core) bare / rooms',
    'other CPU bare / rooms',
    'setup ms bare / rooms (slower window)',
  ];
  const lines = [
    `Plain-RTP fan-out through one mediasoup worker, rooms against a bare router, ${PACKETS_PER_SECOND} pkt/s of ${RTP_PACKET_BYTES}-byte RTP in, ` +
      `${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per window, windows in the order bare, rooms, rooms, bare for each N, loopback; ${machine()}`,
    '',
    markdownTable(
      header,
      rows.map(rowCells),
      header.map((_h, i) => i),
    ),
    '',
  ];
  const ratios = rows.map((row) => ({ consumers: row.consumers, ratio: cpuPer1000(totals(row.rooms)) / cpuPer1000(totals(row.bare)) }));
  const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  lines.push(
    `- rooms CPU per 1,000 forwarded packets within ${TARGET_RATIO}x of the bare router at every N: ${verdict(worst.ratio <= TARGET_RATIO)} ` +
      `(highest: ${worst.ratio.toFixed(2)}x at ${worst.consumers} consumers)`,
  );
  const largest = rows.at(-1)!;
  const roomsMs = cpuPer1000(totals(largest.rooms));
  const bareMs = cpuPer1000(totals(largest.bare));
  lines.push(
    `- largest N under one core (derived from ${largest.consumers} consumers, at ${PACKETS_PER_SECOND} pkt/s in): ` +
      `rooms ${largestN(roomsMs, PACKETS_PER_SECOND)} (${roomsMs.toFixed(2)} ms per 1,000 packets, ` +
      `about ${Math.round(1_000_000 / roomsMs).toLocaleString('en-US')} forwarded pkt/s per core), ` +
      `bare router ${largestN(bareMs, PACKETS_PER_SECOND)} (${bareMs.toFixed(2)} ms, about ${Math.round(1_000_000 / bareMs).toLocaleString('en-US')} pkt/s)`,
  );
  if (confirm) {
    const { result, otherCpu } = confirm.measured;
    lines.push(
      `- measured at that N through rooms (${confirm.consumers} consumers): ${Math.round(result.forwardedPerSecond).toLocaleString('en-US')} pkt/s forwarded ` +
        `(${(result.forwardedRatio * 100).toFixed(1)} % of in x consumers), ${Math.round(result.arrivedPerSecond).toLocaleString('en-US')} arrived, ` +
        `${result.workerCpuMsPer1000.toFixed(2)} ms per 1,000 packets, worker CPU ${percent(result.workerCoreShare)} of one core, other CPU ${otherCpuText(otherCpu)}`,
    );
  }
  return `\n${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  for (const count of CONSUMER_COUNTS)
    if (!Number.isInteger(count) || count < 1) throw new Error(`bad BENCH_RTC_CONSUMERS: ${CONSUMER_COUNTS.join(',')}`);
  const pool = await WorkerPool.start({ workers: 1, ...WEBRTC_PORTS, listenIp: '127.0.0.1', logLevel: 'error' });
  const rows: Row[] = [];
  let confirm: { consumers: number; measured: Measured } | undefined;
  try {
    const rooms = startRoomsCore(pool);
    try {
      const setups: Record<Side, FanoutSetup> = { bare: bareRouterFanout(pool), rooms: roomFanout(rooms) };
      for (const consumers of CONSUMER_COUNTS) {
        const row: Row = { consumers, bare: [], rooms: [] };
        for (const side of ['bare', 'rooms', 'rooms', 'bare'] as const) row[side].push(await measure(side, setups[side], consumers));
        rows.push(row);
      }
      if (CONFIRM) {
        const consumers = Math.min(MAX_CONFIRM_CONSUMERS, largestN(cpuPer1000(totals(rows.at(-1)!.rooms)), PACKETS_PER_SECOND));
        confirm = { consumers, measured: await measure('rooms', setups.rooms, consumers) };
      }
    } finally {
      rooms.close();
    }
  } finally {
    await pool.close();
  }
  process.stdout.write(report(rows, confirm));
}

runMain(main);
