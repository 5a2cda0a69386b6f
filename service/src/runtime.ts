import http from 'node:http';
import { createApp } from './app';
import type { Core } from './bootstrap';
import type { Config } from './config';
import { serveHttps, type HttpsServing } from './http/https-server';
import { listenOn, serverOptions } from './http/server';
import { nodesMediaProvider, roomMediaProvider } from './media/mediasoup-room-media';
import { MediaCluster } from './media/nodes/media-cluster';
import { recordingUnavailableReason } from './media/recorder';
import { WorkerPool } from './media/worker-pool';
import { serveLocalSql } from './project/project.socket';
import { EmptyRoomsWorker } from './rooms/empty-rooms.worker';
import { BreakoutsWorker } from './rooms/breakouts.worker';
import { createDeliveryWorker, createJobWorker, mediaJobHandlers } from './services';
import type { Logger } from './shared/logger';
import { startTurnServer, type TurnServer } from './turn/turn.server';
import { attachRoomSockets } from './ws/room.socket';

/** How long a graceful stop waits for requests, attempts and recordings in flight before it closes what is left. */
export const STOP_WAIT_MS = 9_000;

/** A plain HTTP server that listens before the service is ready and answers 503 until `serve` hands it the app. */
export interface EarlyListener {
  server: http.Server;
  serve(app: http.RequestListener): void;
}

/** Binds plain HTTP on `host`:`port` at once; until the app is ready a readiness probe sees "starting", not a hung connection. */
export async function listenEarly(port: number, host: string): Promise<EarlyListener> {
  let handle: http.RequestListener = (_req, res) => res.writeHead(503, { 'Retry-After': '1' }).end('svc is starting\n');
  const server = await listenOn(
    http.createServer(serverOptions(), (req, res) => handle(req, res)),
    port,
    host,
  );
  return { server, serve: (app) => (handle = app) };
}

/** How to start: main starts everything; the test harness leaves out what its tests drive themselves. */
export interface StartOptions {
  /** Plain HTTP bound before the bootstrap (so PORT=0 can name the real port in the base URL); absent: bound here when TLS is off. */
  early?: EarlyListener;
  /** The address to listen on; default `config.host`. */
  host?: string;
  /** Starts the mediasoup workers; default `config.rtc.workers` of them on the RTC ports (none when 0). */
  startMedia?: (config: Config, logger: Logger) => Promise<WorkerPool | undefined>;
  /** Starts the delivery, job and empty-room workers, the TURN server and the project database's local socket; default true. */
  background?: boolean;
}

/** How a stop ended: everything finished, or the grace period ran out first. */
export type StopOutcome = 'stopped' | 'timed out';

/** The service running on a core. */
export interface RunningService {
  /** The server the app answers on: plain HTTP, or HTTPS when the service serves TLS itself. */
  server: http.Server;
  https: HttpsServing | undefined;
  media: WorkerPool | undefined;
  turn: TurnServer | undefined;
  /**
   * Stops in order: rooms and their sockets, then (at once) HTTP, the background workers, the recordings and after them
   * the media workers, TURN; then the project database. Waits at most `graceMs` (then closes the connections left);
   * `dropConnections` closes open connections at once instead of letting requests finish.
   */
  stop(opts?: { graceMs?: number; dropConnections?: boolean }): Promise<StopOutcome>;
}

/** One mediasoup worker per configured slot, each with its WebRtcServer on its slice of the RTC ports. */
function startConfiguredMedia(config: Config, logger: Logger): Promise<WorkerPool | undefined> {
  if (config.rtc.workers === 0) return Promise.resolve(undefined);
  const { workers, minPort, maxPort, listenIp, announcedIp } = config.rtc;
  return WorkerPool.start({ workers, minPort, maxPort, listenIp, announcedAddress: announcedIp, logger });
}

/** The one runtime of main and the test harness: media workers, background workers, the app, listen, room sockets, TLS, ordered stop. */
export async function startService(core: Core, opts: StartOptions = {}): Promise<RunningService> {
  const { config, services, logger } = core;
  const background = opts.background ?? true;
  const deliveryWorker = background ? createDeliveryWorker(services, config, logger, { project: core.project }) : undefined;
  const jobWorker = background
    ? createJobWorker(services, mediaJobHandlers(services, config, logger), logger, { concurrency: config.transcription.jobConcurrency })
    : undefined;
  // Nobody can be in a room of a process that is only starting: whoever was in one when it stopped has left.
  services.rooms.recordEveryoneLeft();
  // Nor can a recording still be running: one left processing was cut off and is marked failed.
  const cutOff = services.recordings.failLeftovers();
  if (cutOff.length > 0) logger.warn('recordings cut off by the last stop marked failed', { recording_ids: cutOff });
  const recordingUnavailable = recordingUnavailableReason();
  if (recordingUnavailable) logger.warn(recordingUnavailable);
  const media = await (opts.startMedia ?? startConfiguredMedia)(config, logger);
  // With SVC_REDIS_URL rooms are placed on media nodes (and on this process's workers, if it runs any).
  const nodes = config.nodes.redisUrl ? await MediaCluster.start(config.nodes, logger, media) : undefined;
  if (nodes) services.rooms.useMedia(nodesMediaProvider(nodes, media, { logger }));
  else if (media) services.rooms.useMedia(roomMediaProvider(media, { logger }));
  const turn = background ? await startTurnServer(config, logger) : undefined;
  if (turn) services.roomAccess.useTurn(turn);
  const emptyRooms = background ? new EmptyRoomsWorker(services.rooms, config.rooms.emptyGraceSeconds, logger) : undefined;
  const breakoutsWorker = background ? new BreakoutsWorker(services.rooms, logger) : undefined;
  const app = createApp({ config, services, logger, project: core.project, media, turn, nodes });
  const host = opts.host ?? config.host;
  const early = opts.early ?? (config.tls.mode === 'off' ? await listenEarly(config.port, host) : undefined);
  const https = early ? undefined : await serveHttps(app, { ...config, host }, services.clock, logger);
  early?.serve(app);
  const server = early?.server ?? https!.server;
  const roomSockets = attachRoomSockets(server, services.rooms, services.roomAccess, logger);
  emptyRooms?.start();
  breakoutsWorker?.start();
  deliveryWorker?.start();
  jobWorker?.start();
  // The project database starts on first use (GraphQL, `svc project`, a project integration's delivery), so an
  // idle service holds no PostgreSQL; its CLI socket listens from the start, before anyone is told the service is up.
  const localSql = background
    ? await serveLocalSql(core.project, config.dataDir).catch((err: unknown) => {
        logger.error('the project database socket could not start', { error: err instanceof Error ? err.message : String(err) });
        return { close: async () => undefined };
      })
    : undefined;

  let stopping: Promise<StopOutcome> | undefined;
  const stop = async ({ graceMs = STOP_WAIT_MS, dropConnections = false } = {}): Promise<StopOutcome> => {
    const started = Date.now();
    // The workers stop claiming at once (not after the last HTTP connection closed), so a backlog cannot keep them
    // busy; attempts still in flight at the deadline are left leased and are repeated at the next start, as after a crash.
    emptyRooms?.stop();
    breakoutsWorker?.stop();
    services.rooms.close();
    roomSockets.close();
    // Recordings finish their files (one SIGINT to each ffmpeg) before the workers go.
    const recordingsFinished = services.rooms.recordings.stopAll();
    const closed = Promise.all([
      new Promise<void>((resolve) => server.close(() => resolve())),
      https?.stopCompanions(),
      deliveryWorker?.stop(),
      jobWorker?.stop(),
      recordingsFinished.then(() => media?.close()),
      nodes?.close(),
      turn?.close(),
    ]).then(async () => {
      await localSql?.close();
      await core.project.close();
    });
    if (dropConnections) server.closeAllConnections();
    else server.closeIdleConnections();
    let deadline: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>((resolve) => (deadline = setTimeout(() => resolve('timed out'), graceMs)));
    const outcome = await Promise.race([closed.then(() => 'stopped' as const), timedOut]);
    clearTimeout(deadline);
    if (outcome === 'timed out') {
      server.closeAllConnections();
      logger.warn('stopped before everything finished; attempts in flight are repeated at the next start', {
        waited_ms: Date.now() - started,
      });
    }
    return outcome;
  };
  return {
    server,
    https,
    media,
    turn,
    stop: (stopOpts) => (stopping ??= stop(stopOpts)),
  };
}
