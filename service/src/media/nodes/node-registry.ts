/**
 * The registry of media nodes in Redis. Each node keeps one key alive with a heartbeat: its record (id, control
 * address, announced address, capacity, load, draining) under `svc:media:node:<id>` with a TTL of a few heartbeats,
 * and its id in the set `svc:media:nodes`. The control plane reads the set and the keys: a node whose key expired
 * stopped heartbeating and is out of placement. `svc:media:drain:<id>` asks a node to drain (svc media-node --drain).
 */
import Redis from 'ioredis';
import type { Logger } from '../../shared/logger';

const NODES_SET = 'svc:media:nodes';
const nodeKey = (id: string) => `svc:media:node:${id}`;
const drainKey = (id: string) => `svc:media:drain:${id}`;

/** How often a node renews its record. */
export const HEARTBEAT_MS = 1_000;
/** A record's lifetime: a node that missed this many heartbeats' worth of time is gone. */
export const RECORD_TTL_MS = 3_000;
/** How long a drain request stays in Redis for a node that has not seen it yet. */
const DRAIN_REQUEST_TTL_S = 7 * 24 * 3600;

/** A node's load, as its heartbeat reports it. */
export interface NodeLoad {
  workers: number;
  routers: number;
  transports: number;
  consumers: number;
  /** Peers with a transport on the node. */
  peers: number;
  /** Busy share of the node's worker processes' cores since the last heartbeat, 0..1 (the mean over its workers). */
  cpu: number;
  /** Each worker's busy share by slot (null: none running or just started), measured at `at` on the node's clock. */
  workerCpu?: { at: number; shares: (number | null)[] };
}

/** What a node registers about itself. */
export interface NodeRecord {
  id: string;
  /** The node's control channel (ws://host:port), reached by the control plane only. */
  controlUrl: string;
  /** The address browsers and other nodes send media to. */
  announcedAddress: string;
  /** Peers the node takes at most (SVC_NODE_MAX_PEERS); null: no cap. */
  maxPeers: number | null;
  /** A draining node takes no new rooms and exits once its rooms ended or moved. */
  draining: boolean;
  startedAt: string;
  load: NodeLoad;
}

/** A Redis client for the registry: commands fail at once while disconnected (a heartbeat is not queued), reconnects forever. */
export async function openRedis(url: string, logger: Logger, who: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 200, 1_000),
  });
  let warned = false;
  redis.on('error', (error: Error) => {
    if (warned) return;
    warned = true;
    logger.warn(`${who}: Redis unreachable; retrying`, { error: error.message });
  });
  redis.on('ready', () => (warned = false));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    const where = new URL(url);
    throw new Error(`Redis at ${where.hostname}:${where.port || 6379} is unreachable (${(error as Error).message})`, {
      cause: error,
    });
  }
  return redis;
}

function parseRecord(raw: string | null): NodeRecord | undefined {
  if (!raw) return undefined;
  try {
    const record = JSON.parse(raw) as NodeRecord;
    if (typeof record.id !== 'string' || typeof record.controlUrl !== 'string' || typeof record.load !== 'object') return undefined;
    return record;
  } catch {
    return undefined;
  }
}

/** A node's side: renews its record every HEARTBEAT_MS and reports a drain request. */
export class NodeRegistration {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly record: () => NodeRecord,
    private readonly onDrainRequested: () => void,
  ) {}

  /** Registers now, then keeps the record alive. */
  async start(): Promise<void> {
    await this.runOnce();
    this.timer = setInterval(() => void this.runOnce().catch(() => undefined), HEARTBEAT_MS);
  }

  /** One heartbeat: writes the record with its TTL, and looks for a drain request. */
  runOnce(): Promise<void> {
    this.beating ??= this.beat().finally(() => (this.beating = undefined));
    return this.beating;
  }

  /** Stops the heartbeat and removes the record (the node leaves placement at once). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating?.catch(() => undefined);
    const { id } = this.record();
    await this.redis
      .multi()
      .del(nodeKey(id))
      .srem(NODES_SET, id)
      .del(drainKey(id))
      .exec()
      .catch(() => undefined);
  }

  private async beat(): Promise<void> {
    const record = this.record();
    const [, , drain] =
      (await this.redis
        .multi()
        .set(nodeKey(record.id), JSON.stringify(record), 'PX', RECORD_TTL_MS)
        .sadd(NODES_SET, record.id)
        .get(drainKey(record.id))
        .exec()) ?? [];
    if (drain?.[1]) this.onDrainRequested();
  }
}

/** Asks the node `id` to drain (it sees the request at its next heartbeat). */
export async function requestDrain(redis: Redis, id: string): Promise<NodeRecord | undefined> {
  await redis.set(drainKey(id), '1', 'EX', DRAIN_REQUEST_TTL_S);
  return parseRecord(await redis.get(nodeKey(id)));
}

/** The control plane's view of the registry: the nodes whose record is alive, refreshed by `runOnce`. */
export class NodeDirectory {
  private nodes: NodeRecord[] = [];

  constructor(private readonly redis: Redis) {}

  /** The live nodes as of the last refresh. */
  live(): readonly NodeRecord[] {
    return this.nodes;
  }

  /** Reads the registry; forgets set members whose record expired. Keeps the last view when Redis is unreachable. */
  async runOnce(): Promise<readonly NodeRecord[]> {
    const ids = await this.redis.smembers(NODES_SET);
    const raws = ids.length > 0 ? await this.redis.mget(ids.map(nodeKey)) : [];
    const nodes: NodeRecord[] = [];
    const gone: string[] = [];
    ids.forEach((id, i) => {
      const record = parseRecord(raws[i] ?? null);
      if (record && record.id === id) nodes.push(record);
      else gone.push(id);
    });
    if (gone.length > 0) await this.redis.srem(NODES_SET, ...gone).catch(() => undefined);
    this.nodes = nodes.sort((a, b) => a.id.localeCompare(b.id));
    return this.nodes;
  }
}
