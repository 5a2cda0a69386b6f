/**
 * Resident memory of the built service with rooms: the Node process and its mediasoup worker, from
 * /proc, with no peers, with 20 peers joined to one room over the signalling socket (each with a send
 * and a receive WebRTC transport, no media), and after they left; as configured by default, then without
 * the embedded project database (PGlite), whose memory dwarfs the rooms'. See bench/rtc/README.md.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { RoomClient } from '@svc/service/testing';
import type { JoinCredential } from '../../service/src/rooms/room.protocol';
import { cleanUpOnExit, machine, markdownTable, progress, runMain, smokeOr } from '../support';
import { jsonOf, withRoomService } from './room-service';

const PEERS = Number(process.env.BENCH_ROOMS_PEERS ?? smokeOr(20, 2));
/** The single worker's WebRtcServer port; the fan-out benchmark uses 29900-29999. */
const RTC_PORT = 29_800;
/** RSS is read every SAMPLE_GAP_MS until STEADY_READINGS in a row lie within STEADY_BYTES, for at most STEADY_TIMEOUT_MS. */
const SAMPLE_GAP_MS = smokeOr(500, 100);
const STEADY_READINGS = smokeOr(6, 2);
const STEADY_BYTES = 2 * 1024 * 1024;
const STEADY_TIMEOUT_MS = 30_000;
/** The peers join and leave this many times, to tell a leak from the heap's high-water mark. */
const ROUNDS = smokeOr(2, 1);
const RUN_DEADLINE_MS = 5 * 60_000;

/** VmRSS of a process from /proc/<pid>/status, in bytes. */
function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** The median of the last STEADY_READINGS readings of the processes' total RSS once they stopped moving (or at STEADY_TIMEOUT_MS), and whether they did. */
async function steadyRss(pids: number[]): Promise<{ bytes: number[]; steady: boolean }> {
  const readings: number[][] = [];
  const deadline = performance.now() + STEADY_TIMEOUT_MS;
  for (;;) {
    readings.push(pids.map(rssBytes));
    const last = readings.slice(-STEADY_READINGS);
    const totals = last.map((r) => r.reduce((a, b) => a + b, 0));
    const steady = last.length === STEADY_READINGS && Math.max(...totals) - Math.min(...totals) <= STEADY_BYTES;
    if (steady || performance.now() > deadline) {
      const median = [...last].sort((a, b) => a.reduce((x, y) => x + y, 0) - b.reduce((x, y) => x + y, 0))[Math.floor(last.length / 2)]!;
      return { bytes: median, steady };
    }
    await sleep(SAMPLE_GAP_MS);
  }
}

interface Reading {
  phase: string;
  serviceBytes: number;
  workerBytes: number;
  steady: boolean;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const signedMb = (bytes: number) => (bytes > 0 ? `+${mb(bytes)}` : mb(bytes));

async function read(phase: string, servicePid: number, workerPids: number[]): Promise<Reading> {
  const { bytes, steady } = await steadyRss([servicePid, ...workerPids]);
  const [serviceBytes, ...workers] = bytes;
  const reading = { phase, serviceBytes: serviceBytes!, workerBytes: workers.reduce((a, b) => a + b, 0), steady };
  progress(`${phase}: service ${mb(reading.serviceBytes)} MB, worker ${mb(reading.workerBytes)} MB${steady ? '' : ' (still moving)'}`);
  return reading;
}

/** Joins one guest and creates its two transports, as the room page does before it sends or receives media. */
async function joinPeer(baseUrl: string, code: string, i: number): Promise<RoomClient> {
  const credential = await jsonOf<JoinCredential>(
    fetch(`${baseUrl}/rooms/v1/${code}/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Peer ${i}` }),
    }),
    201,
  );
  const { client, answer } = await RoomClient.join(credential);
  if (!answer.ok || answer.data.status !== 'joined') throw new Error(`peer ${i} did not join: ${JSON.stringify(answer)}`);
  await client.ok('createTransport', { direction: 'send' });
  await client.ok('createTransport', { direction: 'recv' });
  return client;
}

/** The phases of one service run: 0 peers, then ROUNDS times PEERS joining and leaving. */
async function measureService(label: string, projectDatabase: boolean): Promise<Reading[]> {
  return withRoomService(
    RTC_PORT,
    async ({ baseUrl, pid, workerPids, createMeeting }) => {
      const code = await createMeeting('Memory benchmark');
      const results = [await read(`${label}: 0 peers`, pid, workerPids)];
      for (let round = 1; round <= ROUNDS; round++) {
        const clients: RoomClient[] = [];
        try {
          for (let i = 1; i <= PEERS; i++) clients.push(await joinPeer(baseUrl, code, i));
          results.push(await read(`${label}: ${PEERS} peers joined (round ${round})`, pid, workerPids));
          for (const client of clients.splice(0)) {
            await client.ok('leave', {});
            await client.closed();
          }
          results.push(await read(`${label}: after they left (round ${round})`, pid, workerPids));
        } finally {
          for (const client of clients) client.close();
        }
      }
      return results;
    },
    { projectDatabase },
  );
}

async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  if (!Number.isInteger(PEERS) || PEERS < 1) throw new Error(`bad BENCH_ROOMS_PEERS: ${process.env.BENCH_ROOMS_PEERS}`);
  const variants = [
    { service: 'as configured by default (embedded project database)', readings: await measureService('default', true) },
    { service: 'without the project database', readings: await measureService('no project db', false) },
  ];
  const rows = variants.flatMap(({ service, readings }) =>
    readings.map((r) => [
      service,
      r.steady
        ? r.phase.slice(r.phase.indexOf(': ') + 2)
        : `${r.phase.slice(r.phase.indexOf(': ') + 2)} (still moving after ${STEADY_TIMEOUT_MS / 1000} s)`,
      mb(r.serviceBytes),
      mb(r.workerBytes),
      mb(r.serviceBytes + r.workerBytes),
      signedMb(r.serviceBytes + r.workerBytes - readings[0]!.serviceBytes - readings[0]!.workerBytes),
    ]),
  );
  process.stdout.write(
    `\nResident memory (VmRSS once steady: the median of ${STEADY_READINGS} readings ${SAMPLE_GAP_MS} ms apart within ${mb(STEADY_BYTES)} MB) ` +
      `of the built service with one media worker, after start-up, ${PEERS} peers over the signalling socket, ` +
      `each with a send and a receive transport and no media, joining and leaving ${ROUNDS} times; ${machine()}\n\n` +
      markdownTable(['service', 'phase', 'service (Node) MB', 'media worker MB', 'total MB', 'total vs 0 peers MB'], rows, [2, 3, 4, 5]) +
      '\n',
  );
}

runMain(main);
