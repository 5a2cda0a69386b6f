import { spawn, type ChildProcess } from 'node:child_process';
import type Redis from 'ioredis';
import { createLogger } from '../../shared/logger';
import { freePort } from '../../testing/postgres-server';
import { waitUntil } from '../../testing/wait';
import type { MediaShard } from '../media-shard';
import { MediasoupRoomMedia } from '../mediasoup-room-media';
import { WorkerPool } from '../worker-pool';
import { DIAL_BACKOFF_FIRST_MS, DialBackoff, DIAL_BACKOFF_MAX_MS } from './dial-backoff';
import { MediaCluster } from './media-cluster';
import { NodeDirectory, NodeRegistration, openRedis, RECORD_TTL_MS, requestDrain, type NodeRecord } from './node-registry';
import { startControlServer } from './node-server';

const logger = createLogger('silent');
const SECRET = 'k'.repeat(64);

function record(id: string, controlUrl: string, load: Partial<NodeRecord['load']> = {}): NodeRecord {
  return {
    id,
    controlUrl,
    announcedAddress: '127.0.0.1',
    maxPeers: null,
    draining: false,
    startedAt: new Date().toISOString(),
    load: { workers: 1, routers: 0, transports: 0, consumers: 0, peers: 0, cpu: 0, ...load },
  };
}

let redisServer: ChildProcess;
let redisUrl: string;
let redis: Redis;

beforeAll(async () => {
  const port = await freePort();
  redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  redisServer.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  redisServer.once(
    'error',
    (error) => (out += `could not run redis-server (scripts/ensure-deploy-tools.sh installs it): ${error.message}`),
  );
  await waitUntil(() => out.includes('Ready to accept connections') || out.includes('could not run'), 'redis-server to start');
  if (!out.includes('Ready to accept connections')) throw new Error(out);
  redisUrl = `redis://127.0.0.1:${port}`;
  redis = await openRedis(redisUrl, logger, 'test');
});
afterAll(async () => {
  redis?.disconnect();
  redisServer?.kill('SIGKILL');
});

describe('the registry of media nodes in Redis', () => {
  it('shows a heartbeating node, forgets one whose record expired, and removes a stopped one at once', async () => {
    const directory = new NodeDirectory(redis);
    const alive = new NodeRegistration(
      redis,
      () => record('alive', 'ws://127.0.0.1:1'),
      () => undefined,
    );
    const silent = new NodeRegistration(
      redis,
      () => record('silent', 'ws://127.0.0.1:2'),
      () => undefined,
    );
    await alive.start();
    await silent.runOnce(); // one heartbeat, then silence, as a node killed with -9
    expect((await directory.runOnce()).map((n) => n.id)).toEqual(['alive', 'silent']);
    const silencedAt = Date.now();
    await waitUntil(async () => (await directory.runOnce()).length === 1, 'the silent node to expire');
    expect(Date.now() - silencedAt).toBeLessThanOrEqual(RECORD_TTL_MS + 500);
    expect(directory.live().map((n) => n.id)).toEqual(['alive']);
    expect(await redis.smembers('svc:media:nodes')).toEqual(['alive']);
    await alive.stop();
    expect(await directory.runOnce()).toEqual([]);
  });

  it('passes a drain request to the node at its next heartbeat', async () => {
    let drains = 0;
    const node = new NodeRegistration(
      redis,
      () => record('drained', 'ws://127.0.0.1:3'),
      () => drains++,
    );
    await node.runOnce();
    expect(drains).toBe(0);
    expect((await requestDrain(redis, 'drained'))?.id).toBe('drained');
    await node.runOnce();
    expect(drains).toBe(1);
    await node.stop();
    expect(await requestDrain(redis, 'nobody')).toBeUndefined();
  });
});

/** A node record heartbeating in Redis for a control channel at 127.0.0.1:`port` (started: the test stops it). */
async function heartbeating(id: string, port: number): Promise<NodeRegistration> {
  const registration = new NodeRegistration(
    redis,
    () => record(id, `ws://127.0.0.1:${port}`),
    () => undefined,
  );
  await registration.start();
  return registration;
}

/** A cluster over the registry and `pool`, its warnings collected in `lines`. */
function clusterLogging(lines: string[], pool: WorkerPool, now?: () => number): Promise<MediaCluster> {
  return MediaCluster.start(
    { redisUrl, secret: SECRET },
    createLogger('warn', (line) => lines.push(line)),
    pool,
    now,
  );
}

/** One worker for this process and one for a node, each on its own random port range. */
function localAndNodePools(): Promise<[WorkerPool, WorkerPool]> {
  const minPort = 20_000 + Math.floor(Math.random() * 9_000);
  const start = (from: number) =>
    WorkerPool.start({ workers: 1, minPort: from, maxPort: from + 19, listenIp: '127.0.0.1', logLevel: 'error' });
  return Promise.all([start(minPort), start(minPort + 20)]);
}

/** A node's control channel on `port`, its shards on `nodePool`. */
function nodeServer(port: number, nodePool: WorkerPool): ReturnType<typeof startControlServer> {
  return startControlServer({
    host: '127.0.0.1',
    port,
    secret: SECRET,
    logger,
    createShard: (meetingId, avoidSlots) => MediasoupRoomMedia.create(nodePool, meetingId, { avoidSlots }),
  });
}

/**
 * Runs `test` on a cluster over one local worker and node `id` (one worker, heartbeating `load`, read at every
 * heartbeat), then closes the shards `test` put in its list and stops everything.
 */
async function withLocalAndNode(
  id: string,
  load: Partial<NodeRecord['load']>,
  test: (cluster: MediaCluster, shards: MediaShard[]) => Promise<void>,
): Promise<void> {
  const [pool, nodePool] = await localAndNodePools();
  const port = await freePort();
  const server = await nodeServer(port, nodePool);
  const node = new NodeRegistration(
    redis,
    () => record(id, `ws://127.0.0.1:${port}`, load),
    () => undefined,
  );
  await node.start();
  const cluster = await clusterLogging([], pool);
  const shards: MediaShard[] = [];
  try {
    await test(cluster, shards);
  } finally {
    for (const shard of shards) shard.close();
    await node.stop();
    await cluster.close();
    await server.close();
    await Promise.all([pool.close(), nodePool.close()]);
  }
}

describe('placement over the nodes and this process’s workers', () => {
  it('places a room on a node before the local workers, falls back to them when the node cannot be reached, and lists every place', async () => {
    const minPort = 20_000 + Math.floor(Math.random() * 9_000);
    const pool = await WorkerPool.start({ workers: 1, minPort, maxPort: minPort + 19, listenIp: '127.0.0.1', logLevel: 'error' });
    const unreachable = await freePort();
    // A node, which placement tries before this process's workers (even named after "local"); nothing listens on its port.
    const ghost = await heartbeating('z-ghost', unreachable);
    const lines: string[] = [];
    const cluster = await clusterLogging(lines, pool);
    try {
      expect(cluster.health().map((n) => [n.id, n.connected])).toEqual([
        ['local', true],
        ['z-ghost', false],
      ]);
      expect(cluster.placeCount()).toBe(2);
      const shard = await cluster.createShard('meeting-1', []);
      expect(shard.place.nodeId).toBe('local');
      // The ghost was tried first and refused, not skipped: the fallback is what placed the room here.
      expect(lines.map((line) => JSON.parse(line) as { msg: string; node_id?: string })).toContainEqual(
        expect.objectContaining({ msg: 'media node: a room could not be placed there; trying another', node_id: 'z-ghost' }),
      );
      expect(cluster.hasRoomFor(shard)).toBe(true);
      shard.close();
      await ghost.stop();
      await cluster.runOnce();
      expect(cluster.health().map((n) => n.id)).toEqual(['local']);
    } finally {
      await ghost.stop();
      await cluster.close();
      await pool.close();
    }
  });

  it('dials a heartbeating but unreachable node once, places rooms elsewhere meanwhile, and uses it again once it answers', async () => {
    const [pool, nodePool] = await localAndNodePools();
    const port = await freePort();
    // Heartbeats in Redis (a node, so placement prefers it to "local"), but nothing listens on its port yet.
    const node = await heartbeating('z-late', port);
    let now = 0;
    const lines: string[] = [];
    const cluster = await clusterLogging(lines, pool, () => now);
    const refusals = () =>
      lines
        .map((line) => JSON.parse(line) as { msg: string; node_id?: string })
        .filter((l) => l.node_id === 'z-late' && l.msg === 'media node: a room could not be placed there; trying another').length;
    let server: Awaited<ReturnType<typeof startControlServer>> | undefined;
    const shards = [];
    try {
      for (let i = 0; i < 4; i++) {
        const shard = await cluster.createShard(`meeting-${i}`, []);
        shards.push(shard);
        expect(shard.place.nodeId).toBe('local');
        now += DIAL_BACKOFF_FIRST_MS / 4 - 1; // still inside the first backoff
      }
      expect(refusals()).toBe(1);
      expect(lines.some((line) => line.includes('unreachable; out of placement until its next dial'))).toBe(true);
      expect(cluster.health().find((n) => n.id === 'z-late')?.connected).toBe(false);

      // The node answers now: it is not dialled before its backoff is over, then it takes the next room.
      server = await nodeServer(port, nodePool);
      shards.push(await cluster.createShard('meeting-still-waiting', []));
      expect(shards.at(-1)!.place.nodeId).toBe('local');
      now += DIAL_BACKOFF_FIRST_MS;
      await cluster.runOnce(); // a new heartbeat read: the shards placed on "local" no longer count as recent there
      const back = await cluster.createShard('meeting-back', []);
      shards.push(back);
      expect(back.place.nodeId).toBe('z-late');
      expect(refusals()).toBe(1);
      expect(cluster.health().find((n) => n.id === 'z-late')).toMatchObject({ connected: true, shards: 1 });
    } finally {
      for (const shard of shards) shard.close();
      await node.stop();
      await cluster.close();
      await server?.close();
      await Promise.all([pool.close(), nodePool.close()]);
    }
  });

  it('opens a webinar’s next router on a worker the room does not use yet: a node’s first, then the local one', async () => {
    await withLocalAndNode('z-node', {}, async (cluster, shards) => {
      shards.push(await cluster.createShard('webinar', []));
      shards.push(await cluster.createShard('webinar', [shards[0]!.place]));
      // Every worker in use: the node again (nodes first), a second router on its worker.
      shards.push(await cluster.createShard('webinar', [shards[0]!.place, shards[1]!.place]));
      expect(shards.map((shard) => shard.place.nodeId)).toEqual(['z-node', 'local', 'z-node']);
    });
  });

  it('reads how busy a shard’s worker is: a node’s from its heartbeat, this process’s own from /proc', async () => {
    const workerCpu: NonNullable<NodeRecord['load']['workerCpu']> = { at: 7, shares: [0.42] };
    await withLocalAndNode('z-busy', { workerCpu }, async (cluster, shards) => {
      shards.push(await cluster.createShard('webinar', []));
      shards.push(await cluster.createShard('webinar', [shards[0]!.place]));
      expect(shards.map((shard) => shard.place.nodeId)).toEqual(['z-busy', 'local']);
      expect(cluster.cpuOf(shards[0]!)).toEqual({ share: 0.42, at: 7 });
      workerCpu.shares = [0.5];
      workerCpu.at = 8;
      await waitUntil(() => cluster.cpuOf(shards[0]!)?.at === 8, 'the next heartbeat’s reading');
      expect(cluster.cpuOf(shards[0]!)?.share).toBe(0.5);
      await waitUntil(() => cluster.cpuOf(shards[1]!) !== undefined, 'a reading of the local worker');
      expect(cluster.cpuOf(shards[1]!)!.share).toBeLessThan(0.5); // an idle worker
      workerCpu.shares = [null];
      workerCpu.at = 9;
      await waitUntil(() => cluster.cpuOf(shards[0]!) === undefined, 'a node worker that just restarted reads as unknown');
    });
  });

  it('refuses a room when no place has room', async () => {
    const cluster = await MediaCluster.start({ redisUrl, secret: SECRET }, logger);
    try {
      await expect(cluster.createShard('meeting-2', [])).rejects.toMatchObject({ code: 'conflict' });
      expect(cluster.placeCount()).toBe(0);
    } finally {
      await cluster.close();
    }
  });
});

describe('the failed-dial backoff', () => {
  it('keeps a node out for 2 s after a failed dial, doubling up to 16 s, and forgets it on success or when it left', () => {
    let now = 1_000;
    const backoff = new DialBackoff(() => now);
    expect(backoff.waiting('n')).toBe(false);
    expect([1, 2, 3, 4, 5].map(() => backoff.failedDial('n'))).toEqual([2_000, 4_000, 8_000, 16_000, DIAL_BACKOFF_MAX_MS]);
    expect(backoff.waiting('n')).toBe(true);
    now += DIAL_BACKOFF_MAX_MS - 1;
    expect(backoff.waiting('n')).toBe(true);
    now += 1;
    expect(backoff.waiting('n')).toBe(false);
    backoff.failedDial('n');
    backoff.clear('n');
    expect(backoff.waiting('n')).toBe(false);
    expect(backoff.failedDial('n')).toBe(DIAL_BACKOFF_FIRST_MS);
    backoff.failedDial('m');
    backoff.retain(new Set(['m']));
    expect([backoff.waiting('n'), backoff.waiting('m')]).toEqual([false, true]);
  });
});
