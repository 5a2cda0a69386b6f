/**
 * The control plane's media when SVC_REDIS_URL is set: the media nodes of the Redis registry (and this process's
 * workers, when it runs any) as one ShardPlacer. It reads the registry every second, connects to a node on first
 * use, and drops a node whose record expired or whose control channel closed: its shards are lost, so their rooms
 * move to new media (rooms.service's recovery) and the pages set up their media again. A node that heartbeats but
 * cannot be dialled stays out of placement for a while (dial-backoff.ts) instead of being dialled for every room.
 */
import type { NodesConfig } from '../../config';
import { AppError } from '../../shared/errors';
import type { Logger } from '../../shared/logger';
import { LOCAL_NODE_ID, type MediaShard, type ShardPlace, type ShardPlacer } from '../media-shard';
import { localShardPlacer } from '../mediasoup-room-media';
import type { CpuReading } from '../webinar-placement';
import type { WorkerPool } from '../worker-pool';
import { DialBackoff } from './dial-backoff';
import { NodeClient } from './node-client';
import { avoidedSlots, chooseNode, hasFreshWorker, hasRoom, type PlacementCandidate } from './node-placement';
import { HEARTBEAT_MS, NodeDirectory, openRedis, type NodeLoad, type NodeRecord } from './node-registry';

/** A media node (or this process's workers) for GET /healthz. */
export interface NodeHealth {
  id: string;
  announcedAddress: string | undefined;
  draining: boolean;
  maxPeers: number | null;
  /** True while the control plane holds an open control channel to the node. */
  connected: boolean;
  /** Rooms' shards the control plane has on the node. */
  shards: number;
  load: NodeLoad;
}

/** This process's workers, when the service runs any beside the nodes. */
interface LocalPlace {
  pool: WorkerPool;
  placer: ShardPlacer;
}

interface Deps {
  directory: NodeDirectory;
  close: () => Promise<void>;
  secret: string;
  logger: Logger;
  local: LocalPlace | undefined;
  backoff: DialBackoff;
}

/** Rooms' media on the registry's nodes (and the local workers); see the file comment. */
export class MediaCluster implements ShardPlacer {
  private readonly clients = new Map<string, Promise<NodeClient>>();
  /** The clients whose control channel is established. */
  private readonly settled = new Map<string, NodeClient>();
  private readonly recent = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private redisDown = false;
  private closed = false;

  private constructor(private readonly deps: Deps) {}

  /**
   * Connects to Redis, reads the registry once and keeps reading it every second; `pool`: this process's workers, a
   * place too; `now`: the clock of the failed-dial backoff.
   */
  static async start(config: NodesConfig, logger: Logger, pool?: WorkerPool, now: () => number = Date.now): Promise<MediaCluster> {
    const local = pool && { pool, placer: localShardPlacer(pool, { logger }) };
    const redis = await openRedis(config.redisUrl!, logger, 'media nodes');
    const cluster = new MediaCluster({
      directory: new NodeDirectory(redis),
      close: async () => void redis.disconnect(),
      secret: config.secret!,
      logger,
      local,
      backoff: new DialBackoff(now),
    });
    await cluster.runOnce();
    cluster.timer = setInterval(() => void cluster.runOnce(), HEARTBEAT_MS);
    return cluster;
  }

  /** Reads the registry and drops the nodes that left it; keeps the last view while Redis is unreachable. */
  runOnce(): Promise<void> {
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  async createShard(meetingId: string, avoid: readonly ShardPlace[]): Promise<MediaShard> {
    if (this.closed) throw AppError.conflict('The service is stopping; reconnect in a moment');
    const tried = new Set<string>();
    const { backoff } = this.deps;
    for (;;) {
      const open = this.candidates().filter((c) => !tried.has(c.record.id) && !backoff.waiting(c.record.id));
      const nodes = open.filter((c) => c.record.id !== LOCAL_NODE_ID);
      const local = open.find((c) => c.record.id === LOCAL_NODE_ID);
      // This process's workers take a shard only when no node has room, or no node has a worker the room does not
      // use yet (a webinar's next router): the control plane keeps its cores for signalling, SQLite and recordings.
      const chosen =
        chooseNode(
          nodes.filter((c) => hasFreshWorker(c, avoid)),
          avoid,
        ) ??
        (local && hasFreshWorker(local, avoid) ? local : undefined) ??
        chooseNode(nodes, avoid) ??
        local;
      if (!chosen) break;
      const { id } = chosen.record;
      tried.add(id);
      this.recent.set(id, (this.recent.get(id) ?? 0) + 1);
      try {
        if (id === LOCAL_NODE_ID) return await this.deps.local!.placer.createShard(meetingId, avoid);
        return await (await this.clientFor(chosen.record)).createShard(meetingId, avoidedSlots(id, avoid));
      } catch (error) {
        this.deps.logger.warn('media node: a room could not be placed there; trying another', { node_id: id, error: String(error) });
      }
    }
    throw AppError.conflict('No media node has room for this room right now; try again in a moment');
  }

  hasRoomFor(shard: MediaShard): boolean {
    const candidate = this.candidates().find((c) => c.record.id === shard.place.nodeId);
    return candidate !== undefined && hasRoom(candidate);
  }

  placeCount(): number {
    return this.candidates()
      .filter((c) => !c.record.draining)
      .reduce((sum, c) => sum + c.record.load.workers, 0);
  }

  cpuOf(shard: MediaShard): CpuReading | undefined {
    const { nodeId, slot } = shard.place;
    if (nodeId === LOCAL_NODE_ID) return this.deps.local?.placer.cpuOf(shard);
    const workerCpu = this.deps.directory.live().find((record) => record.id === nodeId)?.load.workerCpu;
    const share = workerCpu?.shares[slot];
    return workerCpu && typeof share === 'number' ? { share, at: workerCpu.at } : undefined;
  }

  /** Every place with its load, this process's workers first. */
  health(): NodeHealth[] {
    return this.candidates().map(({ record }) => ({
      id: record.id,
      announcedAddress: record.id === LOCAL_NODE_ID ? undefined : record.announcedAddress,
      draining: record.draining,
      maxPeers: record.maxPeers,
      connected: record.id === LOCAL_NODE_ID || this.settled.get(record.id)?.open === true,
      shards: this.shardsOn(record.id),
      load: record.load,
    }));
  }

  /** Stops reading the registry and closes every control channel (the nodes close their shards). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.refreshing;
    for (const client of this.clients.values())
      void client.then(
        (c) => c.close(),
        () => undefined,
      );
    this.clients.clear();
    await this.deps.close();
  }

  private candidates(): PlacementCandidate[] {
    const nodes = this.deps.directory
      .live()
      .map((record) => ({ record, peers: this.peersOn(record.id), recent: this.recent.get(record.id) ?? 0 }));
    const local = this.localRecord();
    return local ? [{ record: local, peers: 0, recent: this.recent.get(LOCAL_NODE_ID) ?? 0 }, ...nodes] : nodes;
  }

  /** This process's workers as a place (taken when no node has room; see createShard). */
  private localRecord(): NodeRecord | undefined {
    const { local } = this.deps;
    if (!local) return undefined;
    const workers = local.pool.runningWorkers();
    if (workers === 0) return undefined;
    const load: NodeLoad = { workers, routers: 0, transports: 0, consumers: 0, peers: 0, cpu: local.pool.cpu.mean() };
    return { id: LOCAL_NODE_ID, controlUrl: '', announcedAddress: '', maxPeers: null, draining: false, startedAt: '', load };
  }

  private peersOn(id: string): number {
    const client = this.settled.get(id);
    return client?.peerCount() ?? 0;
  }

  private shardsOn(id: string): number {
    return this.settled.get(id)?.shardCount() ?? 0;
  }

  private clientFor(record: NodeRecord): Promise<NodeClient> {
    let client = this.clients.get(record.id);
    if (!client) {
      client = NodeClient.connect(record, this.deps.secret, this.deps.logger).then((connected) => {
        this.deps.backoff.clear(record.id);
        this.settled.set(record.id, connected);
        this.deps.logger.info('media node: connected', { node_id: record.id, url: record.controlUrl });
        return connected;
      });
      this.clients.set(record.id, client);
      client.catch((error: unknown) => {
        this.clients.delete(record.id);
        const retryInMs = this.deps.backoff.failedDial(record.id);
        this.deps.logger.warn('media node: unreachable; out of placement until its next dial', {
          node_id: record.id,
          retry_in_ms: retryInMs,
          error: String(error),
        });
      });
    }
    return client.then((c) => {
      if (c.open) return c;
      this.forget(record.id);
      return this.clientFor(record);
    });
  }

  private forget(id: string): void {
    const client = this.settled.get(id);
    this.clients.delete(id);
    this.settled.delete(id);
    client?.close();
  }

  private async refresh(): Promise<void> {
    try {
      await this.deps.directory.runOnce();
      if (this.redisDown) this.deps.logger.info('media nodes: Redis reachable again');
      this.redisDown = false;
    } catch (error) {
      if (!this.redisDown)
        this.deps.logger.warn('media nodes: the registry could not be read; keeping the last view', { error: String(error) });
      this.redisDown = true;
      return;
    }
    this.recent.clear();
    const live = new Set(this.deps.directory.live().map((record) => record.id));
    this.deps.backoff.retain(live);
    for (const id of [...this.settled.keys()]) {
      const client = this.settled.get(id)!;
      if (!live.has(id)) {
        this.deps.logger.warn('media node: stopped heartbeating; out of placement', { node_id: id });
        this.forget(id);
      } else if (!client.open) this.forget(id);
    }
  }
}
