/**
 * The mediasoup worker pool: one worker process per core, each with a WebRtcServer on its own
 * slice of the RTC port range, routers placed on the least-loaded worker, a dead worker replaced.
 * mediasoup runs the worker binary at node_modules/mediasoup/worker/out/Release/mediasoup-worker
 * (put there by scripts/ensure-mediasoup-worker.sh at npm install) or at MEDIASOUP_WORKER_BIN.
 */
import { EventEmitter } from 'node:events';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWorker, type types } from 'mediasoup';
import type { Logger } from '../shared/logger';
import { WorkerCpu } from './worker-cpu';

/** mediasoup's types, for code outside media/ that holds routers, transports, producers and consumers. */
export type { types as MediasoupTypes } from 'mediasoup';

/** An inclusive range of ports. */
export interface PortRange {
  min: number;
  max: number;
}

/** How the pool runs its workers; every field has a default. */
export interface WorkerPoolOptions {
  /** Worker processes (later SVC_RTC_WORKERS); default one per core. */
  workers?: number;
  /** Lowest RTC port (later SVC_RTC_MIN_PORT); default 40000. The range is split evenly between the workers. */
  minPort?: number;
  /** Highest RTC port (later SVC_RTC_MAX_PORT); default 40099. */
  maxPort?: number;
  /** Local address the WebRtcServers listen on; default 0.0.0.0. */
  listenIp?: string;
  /** Address or host name put in ICE candidates (later SVC_RTC_ANNOUNCED_IP); default: none for a specific listenIp, this machine's first external IPv4 for 0.0.0.0 or ::. */
  announcedAddress?: string;
  /** mediasoup worker log level; default 'warn'. */
  logLevel?: types.WorkerLogLevel;
  /** Attempts to replace a dead worker before giving up (workerRestartFailed); default 5. */
  maxRestartAttempts?: number;
  /** Wait before the second replacement attempt, doubled for each further one; default 200 ms. */
  restartBackoffMs?: number;
  /** Where the pool reports worker deaths and restarts; default silent. */
  logger?: Logger;
}

/** A router placed by the pool, with the WebRtcServer of its worker (pass it to createWebRtcTransport). */
export interface PooledRouter {
  router: types.Router;
  webRtcServer: types.WebRtcServer;
  /** The pool slot of the worker, 0..workers-1; a replacement worker keeps the slot. */
  slot: number;
  /** The worker's process id. */
  pid: number;
  /** The worker's port slice, for transports that do not go through the WebRtcServer (portRange). */
  portRange: PortRange;
  /** True once the router's worker died (its routers closed with it), false while it runs or after a normal close. */
  workerDied(): boolean;
}

/** Where createRouter may place a router. */
export interface RouterPlacement {
  /** Slots to leave out (a room's other routers are there), unless no other worker runs. */
  avoidSlots?: readonly number[];
}

/** One worker's state for GET /healthz. */
export interface WorkerHealth {
  slot: number;
  /** The running process, or the last one while a replacement starts; null if none ever started. */
  pid: number | null;
  alive: boolean;
  routers: number;
  /** The WebRtcServer's UDP and TCP port, null while no worker runs in the slot. */
  port: number | null;
  restarts: number;
}

/** Emitted when a worker process dies: its routers (and everything on them) are gone; their peers must reconnect. */
export interface WorkerDiedEvent {
  slot: number;
  pid: number;
  error: Error;
  /** The routers that were on the dead worker. */
  routerIds: string[];
}

/** Emitted when a replacement worker runs in a slot again. */
export interface WorkerRestartedEvent {
  slot: number;
  pid: number;
  previousPid: number;
}

/** Emitted when a slot could not get a replacement worker after every attempt; the pool runs with fewer workers. */
export interface WorkerRestartFailedEvent {
  slot: number;
  error: Error;
}

/** The pool's events and their arguments. */
export interface WorkerPoolEvents {
  workerDied: [WorkerDiedEvent];
  workerRestarted: [WorkerRestartedEvent];
  workerRestartFailed: [WorkerRestartFailedEvent];
}

const DEFAULT_MIN_PORT = 40_000;
const DEFAULT_MAX_PORT = 40_099;
const DEFAULT_MAX_RESTART_ATTEMPTS = 5;
const DEFAULT_RESTART_BACKOFF_MS = 200;
/** Ports of a slice tried for the WebRtcServer before the worker counts as failed to start. */
const MAX_LISTEN_ATTEMPTS = 5;
const EXIT_TIMEOUT_MS = 5_000;

interface RunningWorker {
  worker: types.Worker;
  webRtcServer: types.WebRtcServer;
  port: number;
  /** Routers on this worker; the ones open when it died are kept for WorkerDiedEvent. */
  routers: Set<types.Router>;
  /** Routers being created on this worker, counted so that concurrent placements spread out. */
  routersBeingCreated: number;
}

function load(running: RunningWorker): number {
  return running.routers.size + running.routersBeingCreated;
}

interface Slot {
  index: number;
  portRange: PortRange;
  running: RunningWorker | undefined;
  lastPid: number | null;
  restarts: number;
}

/** Splits [min, max] into `parts` equal, disjoint slices (the remainder at the top stays unused). */
export function splitPortRange(range: PortRange, parts: number): PortRange[] {
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError(`worker count must be a positive integer, got ${parts}`);
  if (!Number.isInteger(range.min) || !Number.isInteger(range.max) || range.min < 1 || range.max > 65_535 || range.min > range.max) {
    throw new RangeError(`invalid RTC port range ${range.min}-${range.max}`);
  }
  const size = Math.floor((range.max - range.min + 1) / parts);
  if (size < 1) throw new RangeError(`RTC port range ${range.min}-${range.max} has fewer ports than the ${parts} workers need`);
  return Array.from({ length: parts }, (_unused, i) => ({ min: range.min + i * size, max: range.min + (i + 1) * size - 1 }));
}

/** This machine's first non-internal IPv4 address, or 127.0.0.1 when it has none. */
export function firstExternalIpv4(): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    const external = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (external) return external.address;
  }
  return '127.0.0.1';
}

/** Starts, places work on, replaces and stops mediasoup workers; create it with `WorkerPool.start`. */
export class WorkerPool extends EventEmitter<WorkerPoolEvents> {
  private readonly slots: Slot[];
  private readonly restartsInFlight = new Set<Promise<void>>();
  private readonly stopRestarts = new AbortController();
  private closing: Promise<void> | undefined;
  /** How busy each slot's worker is (for placing a webinar's viewers). */
  readonly cpu = new WorkerCpu(() => this.slots.map((slot) => slot.running?.worker.pid ?? null));

  private constructor(
    private readonly options: Required<Omit<WorkerPoolOptions, 'announcedAddress' | 'logger'>> &
      Pick<WorkerPoolOptions, 'announcedAddress'>,
    private readonly logger: Logger | undefined,
  ) {
    super();
    const ranges = splitPortRange({ min: options.minPort, max: options.maxPort }, options.workers);
    this.slots = ranges.map((portRange, index) => ({ index, portRange, running: undefined, lastPid: null, restarts: 0 }));
  }

  /** Starts every worker and its WebRtcServer; rejects (leaving nothing running) if one cannot start. */
  static async start(options: WorkerPoolOptions = {}): Promise<WorkerPool> {
    const listenIp = options.listenIp ?? '0.0.0.0';
    const wildcard = listenIp === '0.0.0.0' || listenIp === '::';
    const pool = new WorkerPool(
      {
        workers: options.workers ?? os.availableParallelism(),
        minPort: options.minPort ?? DEFAULT_MIN_PORT,
        maxPort: options.maxPort ?? DEFAULT_MAX_PORT,
        listenIp,
        announcedAddress: options.announcedAddress ?? (wildcard ? firstExternalIpv4() : undefined),
        logLevel: options.logLevel ?? 'warn',
        maxRestartAttempts: options.maxRestartAttempts ?? DEFAULT_MAX_RESTART_ATTEMPTS,
        restartBackoffMs: options.restartBackoffMs ?? DEFAULT_RESTART_BACKOFF_MS,
      },
      options.logger,
    );
    const started = await Promise.allSettled(pool.slots.map((slot) => pool.startWorker(slot)));
    const failure = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) {
      await pool.close();
      const hint = 'npm install puts the worker binary in place with scripts/ensure-mediasoup-worker.sh';
      throw new Error(`a mediasoup worker could not start: ${String(failure.reason)} (${hint})`, { cause: failure.reason });
    }
    return pool;
  }

  /**
   * Creates a router on the running worker with the fewest routers (the lowest slot on a tie), outside
   * `placement.avoidSlots` while another worker runs.
   */
  async createRouter(options?: types.RouterOptions, placement: RouterPlacement = {}): Promise<PooledRouter> {
    if (this.closing) throw new Error('the worker pool is closed');
    const avoid = new Set(placement.avoidSlots ?? []);
    const candidates = this.slots.filter((slot) => slot.running && !avoid.has(slot.index));
    let chosen: { slot: Slot; running: RunningWorker } | undefined;
    for (const slot of candidates.length > 0 ? candidates : this.slots) {
      if (slot.running && (!chosen || load(slot.running) < load(chosen.running))) chosen = { slot, running: slot.running };
    }
    if (!chosen) throw new Error('no mediasoup worker is running');
    const { slot, running } = chosen;
    running.routersBeingCreated++;
    try {
      const { worker } = running;
      const router = await worker.createRouter(options);
      return {
        router,
        webRtcServer: running.webRtcServer,
        slot: slot.index,
        pid: worker.pid,
        portRange: slot.portRange,
        workerDied: () => worker.died,
      };
    } finally {
      running.routersBeingCreated--;
    }
  }

  /** Workers running now (a dead one's slot counts again once its replacement runs). */
  runningWorkers(): number {
    return this.slots.filter((slot) => slot.running).length;
  }

  /** Each worker's process id, liveness, router count, port and restarts, by slot. */
  health(): WorkerHealth[] {
    return this.slots.map((slot) => ({
      slot: slot.index,
      pid: slot.running?.worker.pid ?? slot.lastPid,
      alive: slot.running !== undefined,
      routers: slot.running?.routers.size ?? 0,
      port: slot.running?.port ?? null,
      restarts: slot.restarts,
    }));
  }

  /** Stops replacing workers, closes every worker and resolves once their processes have exited. */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    this.stopRestarts.abort();
    await Promise.all(this.restartsInFlight);
    await Promise.all(
      this.slots.map(async (slot) => {
        const running = slot.running;
        slot.running = undefined;
        if (running) await closeAndWaitForExit(running.worker);
      }),
    );
  }

  private async startWorker(slot: Slot): Promise<RunningWorker> {
    const worker = await createWorker({ logLevel: this.options.logLevel, appData: { slot: slot.index } });
    let listening: { webRtcServer: types.WebRtcServer; port: number };
    try {
      listening = await this.listen(worker, slot.portRange);
    } catch (error) {
      await closeAndWaitForExit(worker);
      throw error;
    }
    const running: RunningWorker = { worker, ...listening, routers: new Set(), routersBeingCreated: 0 };
    worker.observer.on('newrouter', (router) => {
      running.routers.add(router);
      router.observer.once('close', () => {
        if (!worker.died) running.routers.delete(router);
      });
    });
    worker.once('died', (error) => this.workerDied(slot, running, error));
    slot.running = running;
    slot.lastPid = worker.pid;
    return running;
  }

  /** A WebRtcServer on UDP and TCP at the first port of the slice that is free (trying a few). */
  private async listen(worker: types.Worker, range: PortRange): Promise<{ webRtcServer: types.WebRtcServer; port: number }> {
    const { listenIp: ip, announcedAddress } = this.options;
    let lastError: unknown;
    for (let port = range.min; port <= Math.min(range.max, range.min + MAX_LISTEN_ATTEMPTS - 1); port++) {
      try {
        const webRtcServer = await worker.createWebRtcServer({
          listenInfos: [
            { protocol: 'udp', ip, announcedAddress, port },
            { protocol: 'tcp', ip, announcedAddress, port },
          ],
        });
        return { webRtcServer, port };
      } catch (error) {
        lastError = error;
      }
    }
    throw new Error(`no free port for the WebRtcServer in ${range.min}-${range.max}: ${String(lastError)}`, { cause: lastError });
  }

  private workerDied(slot: Slot, running: RunningWorker, error: Error): void {
    if (slot.running !== running) return;
    slot.running = undefined;
    const event: WorkerDiedEvent = { slot: slot.index, pid: running.worker.pid, error, routerIds: [...running.routers].map((r) => r.id) };
    running.routers.clear();
    this.logger?.error('mediasoup worker died', {
      slot: event.slot,
      pid: event.pid,
      error: error.message,
      routers: event.routerIds.length,
    });
    this.emit('workerDied', event);
    if (this.closing) return;
    const restart = this.restart(slot, event.pid).finally(() => this.restartsInFlight.delete(restart));
    this.restartsInFlight.add(restart);
  }

  private async restart(slot: Slot, previousPid: number): Promise<void> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.options.maxRestartAttempts; attempt++) {
      if (attempt > 1) {
        const aborted = await sleep(this.options.restartBackoffMs * 2 ** (attempt - 2), undefined, {
          signal: this.stopRestarts.signal,
        }).then(
          () => false,
          () => true,
        );
        if (aborted) return;
      }
      if (this.stopRestarts.signal.aborted) return;
      try {
        const running = await this.startWorker(slot);
        slot.restarts++;
        if (this.stopRestarts.signal.aborted) return; // close() closes it
        this.logger?.info('mediasoup worker replaced', { slot: slot.index, pid: running.worker.pid, previousPid });
        this.emit('workerRestarted', { slot: slot.index, pid: running.worker.pid, previousPid });
        return;
      } catch (error) {
        lastError = error;
      }
    }
    const error = new Error(`the mediasoup worker in slot ${slot.index} could not be replaced: ${String(lastError)}`, { cause: lastError });
    this.logger?.error('mediasoup worker not replaced', { slot: slot.index, error: error.message });
    this.emit('workerRestartFailed', { slot: slot.index, error });
  }
}

/** Closes a worker and waits for its process to exit, killing it if it takes longer than EXIT_TIMEOUT_MS. */
async function closeAndWaitForExit(worker: types.Worker): Promise<void> {
  if (worker.subprocessClosed) return;
  const exited = new Promise<void>((resolve) => worker.once('subprocessclose', resolve));
  worker.close();
  const timedOut = await Promise.race([exited.then(() => false), sleep(EXIT_TIMEOUT_MS, true, { ref: false })]);
  if (timedOut) {
    process.kill(worker.pid, 'SIGKILL');
    await exited;
  }
}
