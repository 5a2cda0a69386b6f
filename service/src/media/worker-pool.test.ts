import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { splitPortRange, WorkerPool, type WorkerDiedEvent, type WorkerPoolEvents, type WorkerRestartedEvent } from './worker-pool';

const EVENT_TIMEOUT_MS = 10_000;

/** A port range of `size` ports somewhere in 20000-29999, so parallel runs on one machine rarely meet (the pool skips busy ports). */
function someRange(size: number): { minPort: number; maxPort: number } {
  const minPort = 20_000 + Math.floor(Math.random() * (10_000 - size));
  return { minPort, maxPort: minPort + size - 1 };
}

function processExists(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

/** The next `event` of the pool, or a rejection after EVENT_TIMEOUT_MS. */
function next<K extends keyof WorkerPoolEvents>(pool: WorkerPool, event: K): Promise<WorkerPoolEvents[K][0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pool.off(event, onEvent as never);
      reject(new Error(`no ${event} within ${EVENT_TIMEOUT_MS} ms`));
    }, EVENT_TIMEOUT_MS);
    function onEvent(value: WorkerPoolEvents[K][0]): void {
      clearTimeout(timer);
      resolve(value);
    }
    pool.once(event, onEvent as never);
  });
}

describe('splitPortRange', () => {
  it('gives each worker an equal, disjoint slice', () => {
    expect(splitPortRange({ min: 40_000, max: 40_099 }, 2)).toEqual([
      { min: 40_000, max: 40_049 },
      { min: 40_050, max: 40_099 },
    ]);
    expect(splitPortRange({ min: 10, max: 16 }, 3)).toEqual([
      { min: 10, max: 11 },
      { min: 12, max: 13 },
      { min: 14, max: 15 },
    ]);
  });

  it('refuses a range with fewer ports than workers, and nonsense', () => {
    expect(() => splitPortRange({ min: 40_000, max: 40_000 }, 2)).toThrow(/fewer ports than the 2 workers/);
    expect(() => splitPortRange({ min: 40_010, max: 40_000 }, 1)).toThrow(/invalid RTC port range/);
    expect(() => splitPortRange({ min: 40_000, max: 70_000 }, 1)).toThrow(/invalid RTC port range/);
    expect(() => splitPortRange({ min: 40_000, max: 40_010 }, 0)).toThrow(/positive integer/);
  });
});

describe('WorkerPool (real mediasoup workers)', () => {
  let pool: WorkerPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  const start = async (workers: number) => {
    pool = await WorkerPool.start({ workers, ...someRange(20 * workers), listenIp: '127.0.0.1', logLevel: 'error' });
    return pool;
  };

  it('starts the requested number of workers, each listening on a port of its own slice', async () => {
    const { minPort, maxPort } = someRange(30);
    pool = await WorkerPool.start({ workers: 3, minPort, maxPort, listenIp: '127.0.0.1', logLevel: 'error' });
    const health = pool.health();
    expect(health).toHaveLength(3);
    expect(new Set(health.map((h) => h.pid)).size).toBe(3);
    health.forEach((worker, slot) => {
      expect(worker).toMatchObject({ slot, alive: true, routers: 0, restarts: 0 });
      expect(processExists(worker.pid!)).toBe(true);
      expect(worker.port).toBeGreaterThanOrEqual(minPort + slot * 10);
      expect(worker.port).toBeLessThanOrEqual(minPort + slot * 10 + 9);
    });
  });

  it('moves to the next port of the slice when the first one is taken', async () => {
    const { minPort, maxPort } = someRange(10);
    const squatter = createServer().listen(minPort, '127.0.0.1');
    await once(squatter, 'listening');
    try {
      pool = await WorkerPool.start({ workers: 1, minPort, maxPort, listenIp: '127.0.0.1', logLevel: 'none' });
      expect(pool.health()[0]!.port).toBe(minPort + 1);
    } finally {
      squatter.close();
    }
  });

  it('places routers on the least-loaded worker and makes WebRTC transports on its WebRtcServer', async () => {
    const p = await start(2);
    const first = await p.createRouter();
    const second = await p.createRouter();
    const third = await p.createRouter();
    expect([first.slot, second.slot, third.slot]).toEqual([0, 1, 0]);
    expect(p.health().map((h) => h.routers)).toEqual([2, 1]);

    const transport = await second.router.createWebRtcTransport({ webRtcServer: second.webRtcServer });
    const port = p.health()[1]!.port;
    expect(transport.iceCandidates.map((c) => [c.protocol, c.address, c.port]).sort()).toEqual([
      ['tcp', '127.0.0.1', port],
      ['udp', '127.0.0.1', port],
    ]);
    expect(transport.dtlsParameters.fingerprints.length).toBeGreaterThan(0);

    first.router.close();
    expect(p.health().map((h) => h.routers)).toEqual([1, 1]);
    const fourth = await p.createRouter();
    expect(fourth.slot).toBe(0);
  });

  it('spreads routers created at the same time', async () => {
    const p = await start(2);
    const placed = await Promise.all([p.createRouter(), p.createRouter(), p.createRouter(), p.createRouter()]);
    expect(placed.map((r) => r.slot).sort()).toEqual([0, 0, 1, 1]);
  });

  it('replaces a worker whose process is killed and names it and its routers in workerDied', async () => {
    const p = await start(2);
    const doomed = await p.createRouter();
    const survivor = await p.createRouter();
    const died = next(p, 'workerDied');
    const restarted = next(p, 'workerRestarted');

    process.kill(doomed.pid, 'SIGKILL');

    const death: WorkerDiedEvent = await died;
    expect(death).toMatchObject({ slot: doomed.slot, pid: doomed.pid, routerIds: [doomed.router.id] });
    expect(death.error.message).toContain('SIGKILL');
    expect(doomed.router.closed).toBe(true);
    expect(survivor.router.closed).toBe(false);

    const restart: WorkerRestartedEvent = await restarted;
    expect(restart).toMatchObject({ slot: doomed.slot, previousPid: doomed.pid });
    expect(restart.pid).not.toBe(doomed.pid);
    expect(processExists(restart.pid)).toBe(true);
    expect(p.health()[doomed.slot]).toMatchObject({ pid: restart.pid, alive: true, routers: 0, restarts: 1 });

    const replacement = await p.createRouter();
    expect(replacement).toMatchObject({ slot: doomed.slot, pid: restart.pid });
    const transport = await replacement.router.createWebRtcTransport({ webRtcServer: replacement.webRtcServer });
    expect(transport.iceCandidates.length).toBe(2);
  });

  it('close() leaves no worker process and refuses new routers', async () => {
    const p = await start(2);
    await p.createRouter();
    const pids = p.health().map((h) => h.pid!);
    expect(pids.every(processExists)).toBe(true);

    await p.close();

    expect(pids.filter(processExists)).toEqual([]);
    expect(p.health().every((h) => !h.alive)).toBe(true);
    await expect(p.createRouter()).rejects.toThrow('closed');
    await p.close();
  });

  it('close() during a replacement leaves no worker process either', async () => {
    const p = await start(1);
    const { pid } = p.health()[0]!;
    const died = next(p, 'workerDied');
    process.kill(pid!, 'SIGKILL');
    await died;
    await p.close();
    const after = p.health()[0]!;
    expect(after.alive).toBe(false);
    expect([pid!, after.pid!].filter(processExists)).toEqual([]);
  });
});
