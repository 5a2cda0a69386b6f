import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OPUS_RTP, roomPeer, seedMeeting, sendMicrophone, startTestServer, waitUntil } from '@svc/service/testing';
import { openRtpReceiver, sendSyntheticRtp, type RtpReceiver, type RtpStream } from '../testing/plain-rtp';
import type { MediaShard, ShardPlacer } from './media-shard';
import { localShardPlacer, roomMediaProvider } from './mediasoup-room-media';
import { recordingUnavailableReason } from './recorder';
import { SpanningRoomMedia, WEBINAR_SHARD_PEERS } from './spanning-room-media';
import { WorkerPool } from './worker-pool';

const WAIT_MS = 15_000;

/** A port range somewhere in 20000-29999 for the WebRtcServers (plain and pipe transports take any free port). */
function someRange(size: number): { minPort: number; maxPort: number } {
  const minPort = 20_000 + Math.floor(Math.random() * (10_000 - size));
  return { minPort, maxPort: minPort + size - 1 };
}

const until = (check: () => boolean, what: string) => waitUntil(check, what, WAIT_MS);

/** Like SVC_NODE_MAX_PEERS=1 on every place: each peer of a meeting gets a shard of its own (while workers last). */
function onePeerPerShard(placer: ShardPlacer): ShardPlacer {
  return { ...placer, hasRoomFor: (shard: MediaShard) => shard.peerCount() < 1 };
}

/** `pool`'s places with scripted CPU readings, a new one at every read: `share(n, peers)` for the room's n-th shard. */
function withReadings(pool: WorkerPool, share: (index: number, peers: number) => number): ShardPlacer {
  let reads = 0;
  const shards: MediaShard[] = [];
  return {
    ...localShardPlacer(pool),
    cpuOf: (shard) => {
      if (!shards.includes(shard)) shards.push(shard);
      return { share: share(shards.indexOf(shard), shard.peerCount()), at: ++reads };
    },
  };
}

let pool: WorkerPool;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  pool = await WorkerPool.start({ workers: 2, ...someRange(20), listenIp: '127.0.0.1', logLevel: 'error' });
});
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));
afterAll(() => pool.close());

function track<T extends { close(): void } | { stop(): void }>(item: T): T {
  cleanups.push(() => ('close' in item ? item.close() : item.stop()));
  return item;
}

/** Has `peerId` send synthetic Opus-typed RTP over a plain transport; resolves once its producer exists. */
async function send(media: SpanningRoomMedia, peerId: string, ssrc: number): Promise<{ producerId: string; stream: RtpStream }> {
  const transport = await media.createPlainTransport(peerId, 'send', '127.0.0.1');
  const producerId = await media.produce(peerId, {
    transportId: transport.id,
    kind: 'audio',
    rtpParameters: { ...OPUS_RTP, encodings: [{ ssrc }] },
    source: 'microphone',
    paused: false,
  });
  const stream = track(await sendSyntheticRtp(transport.local, { ssrc, payloadType: 111, packetsPerSecond: 200 }));
  return { producerId, stream };
}

/** A plain receive transport for `peerId`, its packets counted. */
async function receive(media: SpanningRoomMedia, peerId: string): Promise<RtpReceiver> {
  const receiver = track(await openRtpReceiver());
  const transport = await media.createPlainTransport(peerId, 'recv', '127.0.0.1');
  await media.connectPlainTransport(peerId, transport.id, receiver.address);
  return receiver;
}

/** Consumes and resumes; resolves with the consumer's id and the SSRC its packets carry. */
async function consume(media: SpanningRoomMedia, peerId: string, producerId: string): Promise<{ id: string; ssrc: number }> {
  const consumer = await media.consume(peerId, producerId, media.rtpCapabilities);
  if (!consumer) throw new Error(`${peerId} cannot consume ${producerId}`);
  await media.setConsumerPaused(peerId, consumer.id, false);
  return { id: consumer.id, ssrc: (consumer.rtpParameters as { encodings: { ssrc: number }[] }).encodings[0]!.ssrc };
}

function events(media: SpanningRoomMedia): string[] {
  const seen: string[] = [];
  media.on('consumerPaused', (peerId, consumerId) => seen.push(`paused ${peerId} ${consumerId}`));
  media.on('consumerResumed', (peerId, consumerId) => seen.push(`resumed ${peerId} ${consumerId}`));
  media.on('consumerClosed', (peerId, consumerId) => seen.push(`closed ${peerId} ${consumerId}`));
  return seen;
}

describe('a room spanning two workers (real mediasoup)', () => {
  it('pipes each producer to the other shard: each side gets the other one’s packets, a late shard gets existing producers, pause and close reach the copies', async () => {
    const media = track(await SpanningRoomMedia.create(onePeerPerShard(localShardPlacer(pool)), 'm-span'));
    const seen = events(media);
    // Alice sends before Bob exists: Bob's shard opens later and gets her producer piped in.
    const aliceIn = await receive(media, 'alice');
    const alice = await send(media, 'alice', 1_111);
    expect(media.routerIds).toHaveLength(1);
    const bobIn = await receive(media, 'bob');
    expect(media.routerIds).toHaveLength(2);
    expect(media.peersPerShard()).toEqual([1, 1]);
    const bob = await send(media, 'bob', 2_222);

    const bobHearsAlice = await consume(media, 'bob', alice.producerId);
    const aliceHearsBob = await consume(media, 'alice', bob.producerId);
    await until(() => bobIn.packets(bobHearsAlice.ssrc) > 20, 'Alice’s packets at Bob (other worker)');
    await until(() => aliceIn.packets(aliceHearsBob.ssrc) > 20, 'Bob’s packets at Alice (other worker)');

    // Pausing Alice's producer pauses its copy on Bob's router: Bob's consumer sees producerpause, and packets stop.
    await media.setProducerPaused('alice', alice.producerId, true);
    await until(() => seen.includes(`paused bob ${bobHearsAlice.id}`), 'consumerPaused on the other shard');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const whilePaused = bobIn.packets(bobHearsAlice.ssrc);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bobIn.packets(bobHearsAlice.ssrc) - whilePaused).toBeLessThanOrEqual(2);
    await media.setProducerPaused('alice', alice.producerId, false);
    await until(() => seen.includes(`resumed bob ${bobHearsAlice.id}`), 'consumerResumed on the other shard');
    await until(() => bobIn.packets(bobHearsAlice.ssrc) > whilePaused + 20, 'packets again after resume');

    // Closing Bob's producer closes its copy on Alice's router; Bob leaving closes his shard's objects.
    media.closeProducer('bob', bob.producerId);
    await until(() => seen.includes(`closed alice ${aliceHearsBob.id}`), 'consumerClosed for the copy');
    media.closePeer('alice');
    await until(() => seen.includes(`closed bob ${bobHearsAlice.id}`), 'consumerClosed when the sender left');
    expect(await media.consume('bob', alice.producerId, media.rtpCapabilities)).toBeNull();
  });

  it('records on the home shard, with the microphone of a peer on the other shard', async () => {
    const unavailable = recordingUnavailableReason();
    if (unavailable) throw new Error(unavailable);
    const media = track(await SpanningRoomMedia.create(onePeerPerShard(localShardPlacer(pool)), 'm-record'));
    await receive(media, 'host'); // the home shard's peer
    const owner = { participant_id: 'p-guest', name: 'Guest' };
    track((await sendMicrophone(media, 'guest', owner)).sender);
    expect(media.routerIds).toHaveLength(2);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'span-rec-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'room.mkv');
    const recording = media.record(file);
    // The track's ffmpeg writes once the piped copy's packets reach it on the home shard; then two seconds more.
    const trackBytes = () =>
      fs.existsSync(`${file}.tracks`) && fs.readdirSync(`${file}.tracks`).some((f) => fs.statSync(path.join(`${file}.tracks`, f)).size > 0);
    await until(trackBytes, 'the recorder writing the other shard’s microphone');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const recorded = await recording.stop();
    expect(recorded.audioTracks).toBe(1);
    expect(recorded.audioTrackOwners).toEqual([owner]);
    expect(recorded.durationSeconds).toBeGreaterThan(1);
  });

  it('keeps a meeting on one router, spreads a webinar over both workers, and reports a lost shard with all its routers', async () => {
    const provider = roomMediaProvider(pool);
    const meeting = track((await provider.create('m-meeting', { kind: 'meeting' })) as SpanningRoomMedia);
    await receive(meeting, 'a');
    await send(meeting, 'b', 3_333);
    expect(meeting.routerIds).toHaveLength(1);
    // A full place (here: one peer per shard) sends the next peer to a new shard, also when both arrive at once.
    const capped = track(await SpanningRoomMedia.create(onePeerPerShard(localShardPlacer(pool)), 'm-capped'));
    await Promise.all(['x', 'y'].map((peerId) => capped.createPlainTransport(peerId, 'recv', '127.0.0.1')));
    expect(capped.peersPerShard()).toEqual([1, 1]);

    const webinar = track((await provider.create('m-webinar', { kind: 'webinar' })) as SpanningRoomMedia);
    const host = await send(webinar, 'host', 4_444);
    const viewers = await Promise.all(Array.from({ length: 49 }, (_v, i) => receive(webinar, `viewer-${i}`)));
    expect(webinar.routerIds).toHaveLength(2);
    // Host and 24 viewers on the home shard (WEBINAR_SHARD_PEERS = 25), then each viewer to the shard with fewer
    // peers: the workers are nearly idle, so their CPU readings do not count (webinar-placement.ts).
    expect(WEBINAR_SHARD_PEERS).toBe(25);
    expect(webinar.peersPerShard()).toEqual([25, 25]);
    const workersUsed = new Set(
      pool
        .health()
        .filter((w) => w.routers > 0)
        .map((w) => w.slot),
    );
    expect(workersUsed.size).toBe(2);
    const consumers = await Promise.all(viewers.map((_r, i) => consume(webinar, `viewer-${i}`, host.producerId)));
    await until(() => viewers.every((r, i) => r.packets(consumers[i]!.ssrc) > 10), 'the host’s packets at every viewer');

    const lost: string[][] = [];
    provider.onRoutersLost((routerIds) => lost.push(routerIds));
    // Each worker holds one of the webinar's routers: losing either moves the whole room.
    process.kill(pool.health()[1]!.pid!, 'SIGKILL');
    await until(() => lost.some((ids) => ids.join() === webinar.routerIds.join()), 'the webinar reported with both its routers');
  });

  it('gives a webinar’s viewers to the worker with CPU left: twice as many where a viewer costs half', async () => {
    await until(() => pool.health().every((w) => w.alive), 'both workers running (one was killed above)');
    // The readings the home shard's worker on a slower core (2 % of a core per peer) and the next one's on a faster
    // core (1 %) would give.
    const placer = withReadings(pool, (index, peers) => (index === 0 ? 0.02 : 0.01) * peers);
    const webinar = track(await SpanningRoomMedia.create(placer, 'm-cpu-webinar', { kind: 'webinar' }));
    await send(webinar, 'host', 5_555);
    for (let i = 0; i < 89; i++) await webinar.createPlainTransport(`viewer-${i}`, 'recv', '127.0.0.1');
    // By count it would be 45 and 45; equal CPU is 30 on the slower worker and 60 on the faster, within one viewer.
    const [home, next] = webinar.peersPerShard();
    expect(Math.abs(home! - 30)).toBeLessThanOrEqual(1);
    expect(home! + next!).toBe(90);
  });

  it('opens a webinar’s next router on a free worker when the router its viewers would go to is full, though another is busy and small', async () => {
    const three = await WorkerPool.start({ workers: 3, ...someRange(30), listenIp: '127.0.0.1', logLevel: 'error' });
    cleanups.push(() => void three.close());
    // The second router's worker is busy with another room (0.8 of a core with 10 of ours): our viewers avoid it.
    const placer = withReadings(three, (index, peers) => (index === 1 ? 0.8 : 0.01 * peers));
    const webinar = track(await SpanningRoomMedia.create(placer, 'm-third-router', { kind: 'webinar' }));
    for (let i = 0; i < 60; i++) await webinar.createPlainTransport(`peer-${i}`, 'recv', '127.0.0.1');
    expect(webinar.peersPerShard()).toEqual([WEBINAR_SHARD_PEERS, 10, 25]);
  });

  it('gets the room kind from RoomsService: a webinar room spreads, a meeting room does not', async () => {
    await until(() => pool.health().every((w) => w.alive), 'both workers running (one was killed above)');
    const t = await startTestServer();
    cleanups.push(() => t.close());
    t.services.rooms.useMedia(roomMediaProvider(pool));
    const routersFor = async (kind: 'meeting' | 'webinar') => {
      const m = seedMeeting(t, { title: kind, kind, ...(kind === 'webinar' ? { slug: 'spread-webinar' } : {}) });
      const { session } = await roomPeer(t, m, 'Host', { host: true });
      const media = session.room.media as SpanningRoomMedia;
      for (let i = 0; i <= WEBINAR_SHARD_PEERS; i++) await media.createPlainTransport(`p${i}`, 'recv', '127.0.0.1');
      return media.routerIds.length;
    };
    expect(await routersFor('meeting')).toBe(1);
    expect(await routersFor('webinar')).toBe(2);
  });
});
