import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sendMicrophone, waitUntil } from '@svc/service/testing';
import { createLogger } from '../shared/logger';
import type { ShardPlacer } from './media-shard';
import { localShardPlacer, MediasoupRoomMedia } from './mediasoup-room-media';
import { NodeClient } from './nodes/node-client';
import { MediaCounters } from './nodes/node-load';
import { avoidedSlots } from './nodes/node-placement';
import { startControlServer, type ControlServer } from './nodes/node-server';
import { REMOTE_RECORDING_REFUSAL } from './nodes/remote-media-shard';
import { recordingUnavailableReason } from './recorder';
import { RECORDING_SHARD_LOST } from './recording-shard';
import { SpanningRoomMedia } from './spanning-room-media';
import { WorkerPool } from './worker-pool';

// A room whose home shard is on a media node (a real control channel to a node's control server and its own
// mediasoup worker) records and taps its microphones on a recording shard of this process's workers.
const SECRET = 'r'.repeat(64);
const logger = createLogger('silent');
const WAIT_MS = 20_000;

let nodePool: WorkerPool;
let ownPool: WorkerPool;
let server: ControlServer;
let client: NodeClient;
let dir: string;
/** Transports of both pools (this process's mediasoup), counted from before their workers start. */
let counters: MediaCounters;
const cleanups: (() => unknown)[] = [];

const range = () => {
  const minPort = 20_000 + Math.floor(Math.random() * 9_000);
  return { minPort, maxPort: minPort + 19 };
};

beforeAll(async () => {
  const unavailable = recordingUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  counters = new MediaCounters();
  [nodePool, ownPool] = await Promise.all([
    WorkerPool.start({ workers: 1, ...range(), listenIp: '127.0.0.1', logLevel: 'error' }),
    WorkerPool.start({ workers: 1, ...range(), listenIp: '127.0.0.1', logLevel: 'error' }),
  ]);
  server = await startControlServer({
    host: '127.0.0.1',
    port: 0,
    secret: SECRET,
    logger,
    createShard: (meetingId, avoidSlots) => MediasoupRoomMedia.create(nodePool, meetingId, { avoidSlots }),
  });
  const controlUrl = `ws://127.0.0.1:${server.port}`;
  const load = { workers: 1, routers: 0, transports: 0, consumers: 0, peers: 0, cpu: 0 };
  const record = { id: 'n1', controlUrl, announcedAddress: '127.0.0.1', maxPeers: null, draining: false, startedAt: '', load };
  client = await NodeClient.connect(record, SECRET, logger);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recording-shard-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  client?.close();
  await server?.close();
  await Promise.all([nodePool?.close(), ownPool?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The node as the only place for peers. */
const onTheNode: ShardPlacer = {
  createShard: (meetingId, avoid) => client.createShard(meetingId, avoidedSlots('n1', avoid)),
  hasRoomFor: () => true,
  placeCount: () => 1,
  cpuOf: () => undefined,
};

const ownRouters = () => ownPool.health().reduce((sum, worker) => sum + worker.routers, 0);

/** A room on the node whose guest sends a real Opus microphone (ffmpeg) from the node's side. */
async function roomWithGuest(meetingId: string, withOwnWorkers: boolean, kind: 'meeting' | 'webinar' = 'meeting') {
  const media = await SpanningRoomMedia.create(onTheNode, meetingId, { kind }, withOwnWorkers ? localShardPlacer(ownPool) : undefined);
  cleanups.push(() => media.close());
  const owner = { participant_id: 'p-guest', name: 'Guest' };
  const { sender } = await sendMicrophone(media, 'guest', owner);
  cleanups.push(() => sender.stop());
  return { media, owner };
}

const trackBytes = (file: string) =>
  fs.existsSync(`${file}.tracks`) && fs.readdirSync(`${file}.tracks`).some((f) => fs.statSync(path.join(`${file}.tracks`, f)).size > 0);

describe('recording and captions of a room on a media node', () => {
  it('records the node-side microphone on a recording shard of the own workers, places no peer there, and closes it after the recording', async () => {
    // A webinar: its placement takes the shard with the fewest peers, which the recording shard would be if it took peers.
    const { media, owner } = await roomWithGuest('m-record', true, 'webinar');
    expect(media.routerIds).toHaveLength(1);
    expect(ownRouters()).toBe(0);
    const transportsBefore = counters.transports;
    const file = path.join(dir, 'room.mkv');
    const recording = media.record(file);
    await waitUntil(() => media.routerIds.length === 2 && ownRouters() === 1, 'the recording shard on the own worker', WAIT_MS);
    // A peer arriving now goes to the node, not to the recording shard.
    await media.createPlainTransport('viewer', 'recv', '127.0.0.1');
    expect(media.peersPerShard()).toEqual([2, 0]);
    await waitUntil(() => trackBytes(file), 'the recorder writing the node-side microphone', WAIT_MS);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const recorded = await recording.stop();
    expect(recorded.audioTracks).toBe(1);
    expect(recorded.audioTrackOwners).toEqual([owner]);
    expect(recorded.durationSeconds).toBeGreaterThan(1);
    const probe = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name', '-of', 'csv=p=0', file], {
      encoding: 'utf8',
    });
    expect(probe.stdout.trim()).toBe('opus,audio');
    expect(media.routerIds).toHaveLength(1);
    await waitUntil(() => ownRouters() === 0, 'the recording shard closed', WAIT_MS);
    // The node's end of the pipe closed too: what is left is the guest's and the viewer's transport.
    await waitUntil(() => counters.transports === transportsBefore + 1, 'the node’s pipe transport closed', WAIT_MS);
  });

  it('taps the node-side microphone for captions there, and closes the shard when the tapping stops', async () => {
    const { media, owner } = await roomWithGuest('m-tap', true);
    let pcmBytes = 0;
    const owners: unknown[] = [];
    const tapping = media.tapMicrophones((tap) => {
      owners.push(tap.owner);
      tap.onPcm((pcm) => (pcmBytes += pcm.length));
    });
    // One second of 16 kHz 16-bit mono PCM decoded from the piped copy.
    await waitUntil(() => pcmBytes > 32_000, 'PCM of the node-side microphone', WAIT_MS);
    expect(owners).toEqual([owner]);
    expect(ownRouters()).toBe(1);
    tapping.stop();
    await waitUntil(() => ownRouters() === 0 && media.routerIds.length === 1, 'the recording shard closed', WAIT_MS);
  });

  it('fails the recording and ends the tapping when the recording shard’s worker dies; the room stays on its node', async () => {
    const { media } = await roomWithGuest('m-lost', true);
    const lostRouters: string[][] = [];
    media.onLost((ids) => lostRouters.push(ids));
    const failures: string[] = [];
    const recording = media.record(path.join(dir, 'lost.mkv'));
    recording.onFailure((error) => failures.push(error.message));
    let tapClosed = false;
    media.tapMicrophones(() => undefined).onClosed(() => (tapClosed = true));
    await waitUntil(() => ownRouters() === 1, 'the recording shard', WAIT_MS);
    process.kill(ownPool.health()[0]!.pid!, 'SIGKILL');
    await waitUntil(() => failures.length === 1 && tapClosed, 'the recording failed and the tapping ended', WAIT_MS);
    expect(failures).toEqual([RECORDING_SHARD_LOST]);
    expect(media.routerIds).toHaveLength(1);
    expect(lostRouters).toEqual([]);
    await waitUntil(() => ownPool.health().every((w) => w.alive), 'the own worker replaced', WAIT_MS);
    // The next recording opens a new recording shard.
    const file = path.join(dir, 'again.mkv');
    const again = media.record(file);
    await waitUntil(() => trackBytes(file), 'a new recording shard recording', WAIT_MS);
    expect(media.routerIds).toHaveLength(2);
    await expect(again.stop()).resolves.toMatchObject({ audioTracks: 1 });
  });

  it('refuses (conflict, HTTP 409) to record or tap a room on a node without own workers', async () => {
    const { media } = await roomWithGuest('m-refused', false);
    for (const start of [() => media.record(path.join(dir, 'refused.mkv')), () => media.tapMicrophones(() => undefined)]) {
      let thrown: unknown;
      try {
        start();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code: 'conflict', message: REMOTE_RECORDING_REFUSAL });
    }
    expect(media.routerIds).toHaveLength(1);
  });
});
