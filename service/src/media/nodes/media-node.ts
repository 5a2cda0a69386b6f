/**
 * `svc media-node`: a process that runs mediasoup workers for a control plane elsewhere, and nothing else (no HTTP
 * app, no database). It serves its control channel (node-server.ts), registers in Redis with its load every second
 * (node-registry.ts), and drains on request: no new rooms, and it exits once its rooms ended or moved.
 */
import type { types } from 'mediasoup';
import type { MediaNodeConfig } from '../../config';
import { AppError } from '../../shared/errors';
import type { Logger } from '../../shared/logger';
import { MediasoupRoomMedia } from '../mediasoup-room-media';
import { firstExternalIpv4, WorkerPool } from '../worker-pool';
import { CpuSampler } from '../worker-cpu';
import { MediaCounters } from './node-load';
import { NodeRegistration, openRedis, type NodeRecord } from './node-registry';
import { startControlServer } from './node-server';

/** A media node running in this process. */
export interface RunningMediaNode {
  id: string;
  /** The control channel's URL, as registered. */
  controlUrl: string;
  /** Stops taking rooms; the node stops by itself once it holds none. */
  drain(): void;
  /** Leaves the registry, closes the control channels (their shards with them) and the workers. */
  stop(): Promise<void>;
  /** Resolves once the node stopped (after a drain or `stop`). */
  stopped: Promise<void>;
}

function hostPart(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/** Starts the workers, the control channel and the registration; rejects (leaving nothing running) if one cannot start. */
export async function startMediaNode(config: MediaNodeConfig, logger: Logger): Promise<RunningMediaNode> {
  const counters = new MediaCounters();
  const { rtc } = config;
  const wildcard = rtc.listenIp === '0.0.0.0' || rtc.listenIp === '::';
  const announced = rtc.announcedIp ?? (wildcard ? firstExternalIpv4() : rtc.listenIp);
  const pool = await WorkerPool.start({
    workers: rtc.workers,
    minPort: rtc.minPort,
    maxPort: rtc.maxPort,
    listenIp: rtc.listenIp,
    announcedAddress: announced,
    logger,
  });
  // Pipes to other nodes' routers listen on the node's RTC ports, so a firewall opens one range per node.
  const pipeListenInfo: types.TransportListenInfo = {
    protocol: 'udp',
    ip: rtc.listenIp,
    announcedAddress: announced,
    portRange: { min: rtc.minPort, max: rtc.maxPort },
  };
  let draining = false;
  const server = await startControlServer({
    host: config.listenIp,
    port: config.port,
    secret: config.secret,
    logger,
    createShard: (meetingId, avoidSlots) => {
      if (draining) return Promise.reject(AppError.conflict('This media node is draining'));
      return MediasoupRoomMedia.create(pool, meetingId, { pipeListenInfo, avoidSlots, logger });
    },
  }).catch(async (error: unknown) => {
    await pool.close();
    throw error;
  });
  const controlWildcard = config.listenIp === '0.0.0.0' || config.listenIp === '::';
  const controlUrl = `ws://${hostPart(config.address ?? (controlWildcard ? announced : config.listenIp))}:${server.port}`;
  const cpu = new CpuSampler();
  const startedAt = new Date().toISOString();
  const shards = () => server.channels().reduce((sum, channel) => sum + channel.shardCount(), 0);
  const record = (): NodeRecord => {
    const workers = pool.health();
    const shares = cpu.shares(workers.map((worker) => (worker.alive ? worker.pid : null)));
    const running = workers.filter((worker) => worker.alive).length;
    return {
      id: config.id,
      controlUrl,
      announcedAddress: announced,
      maxPeers: config.maxPeers,
      draining,
      startedAt,
      load: {
        workers: pool.runningWorkers(),
        routers: counters.routers,
        transports: counters.transports,
        consumers: counters.consumers,
        peers: server.channels().reduce((sum, channel) => sum + channel.peerCount(), 0),
        cpu: running > 0 ? shares.reduce<number>((sum, share) => sum + (share ?? 0), 0) / running : 0,
        workerCpu: { at: Date.now(), shares: shares.map((share) => share ?? null) },
      },
    };
  };

  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let drainCheck: NodeJS.Timeout | undefined;
  const redis = await openRedis(config.redisUrl, logger, 'media node').catch(async (error: unknown) => {
    await Promise.all([server.close(), pool.close()]);
    throw error;
  });
  const registration = new NodeRegistration(redis, record, () => drain());
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      clearInterval(drainCheck);
      await registration.stop();
      redis.disconnect();
      await server.close();
      await pool.close();
      logger.info('media node stopped', { node_id: config.id });
      resolveStopped();
    })());
  const drain = (): void => {
    if (draining) return;
    draining = true;
    logger.info('media node draining: no new rooms; stops once its rooms ended or moved', { node_id: config.id, shards: shards() });
    void registration.runOnce().catch(() => undefined);
    const check = () => {
      if (shards() === 0) void stop();
    };
    drainCheck = setInterval(check, 250);
    check();
  };
  await registration.start().catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { id: config.id, controlUrl, drain, stop, stopped };
}
