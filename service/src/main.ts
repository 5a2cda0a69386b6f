import { createApp } from './app';
import { ConfigError, insecureBaseUrlWarning, loadConfig, type Config } from './config';
import type { Logger } from './shared/logger';
import { bootstrap } from './bootstrap';
import { SCOPES } from './keys/scopes';
import http from 'node:http';
import { listenOn, portOf, serverOptions } from './http/server';
import { serveHttps } from './http/https-server';
import { serveLocalSql } from './project/project.socket';
import { createDeliveryWorker, createJobWorker, mediaJobHandlers } from './services';
import { WorkerPool } from './media/worker-pool';
import { roomMediaProvider } from './media/mediasoup-room-media';
import { recordingUnavailableReason } from './media/recorder';
import { EmptyRoomsWorker } from './rooms/empty-rooms.worker';
import { attachRoomSockets } from './ws/room.socket';
import { startTurnServer } from './turn/turn.server';
import { forgetRunningService, recordRunningService } from './shared/running-service';

/** The most a graceful stop may take before the process exits anyway. */
const STOP_LIMIT_MS = 10_000;
// Leaves time to close the database and exit inside STOP_LIMIT_MS.
const STOP_WAIT_MS = STOP_LIMIT_MS - 1_000;

/** Composition root: config -> database + migrations -> HTTP -> background workers; stops gracefully on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let config = loadConfig();
  // Plain HTTP binds first: with PORT=0 the base URL (join links, download URLs) then names the port really used.
  // Until the app is ready, requests get 503 (a readiness probe sees "starting", not a hung connection).
  let handle: http.RequestListener = (_req, res) => res.writeHead(503, { 'Retry-After': '1' }).end('svc is starting\n');
  const plain =
    config.tls.mode === 'off'
      ? await listenOn(
          http.createServer(serverOptions(), (req, res) => handle(req, res)),
          config.port,
          config.host,
        )
      : undefined;
  if (plain && config.port === 0) config = loadConfig({ ...process.env, PORT: String(portOf(plain)) });
  const core = bootstrap(config);
  const { logger, services } = core;
  const insecure = insecureBaseUrlWarning(config.baseUrl);
  if (insecure) logger.warn(insecure);
  if (core.migrationsApplied.length > 0) logger.info('migrations applied', { migrations: core.migrationsApplied });
  const { owner, created } = services.identity.ensureOwner();
  if (created) {
    const { key } = services.keys.create({ userId: owner.id, name: 'Owner key (first start)', scopes: [...SCOPES] });
    process.stdout.write(`First start: an all-scopes API key was created. It is shown only this once:\n${key}\n`);
    const link = services.dashboard.signInLink(owner.id);
    process.stdout.write(
      `Dashboard: sign in once with this link (valid 15 minutes; \`npx svc dashboard-link\` prints a new one):\n${link.url}\n`,
    );
  }

  const deliveryWorker = createDeliveryWorker(services, config, logger, { project: core.project });
  const jobWorker = createJobWorker(services, mediaJobHandlers(services, config, logger), logger, {
    concurrency: config.transcription.jobConcurrency,
  });
  // Nobody can be in a room of a process that is only starting: whoever was in one when it stopped has left.
  services.rooms.recordEveryoneLeft();
  // Nor can a recording still be running: one left processing was cut off and is marked failed.
  const cutOff = services.recordings.failLeftovers();
  if (cutOff.length > 0) logger.warn('recordings cut off by the last stop marked failed', { recording_ids: cutOff });
  const recordingUnavailable = recordingUnavailableReason();
  if (recordingUnavailable) logger.warn(recordingUnavailable);
  const media = config.rtc.workers > 0 ? await startMediaWorkers(config, logger) : undefined;
  if (media) services.rooms.useMedia(roomMediaProvider(media, { logger }));
  const turn = await startTurnServer(config, logger);
  if (turn) services.roomAccess.useTurn(turn);
  const emptyRooms = new EmptyRoomsWorker(services.rooms, config.rooms.emptyGraceSeconds, logger);
  const app = createApp({ config, services, logger, project: core.project, media, turn });
  const https = plain ? undefined : await serveHttps(app, config, services.clock, logger);
  handle = app;
  const server = plain ?? https!.server;
  const roomSockets = attachRoomSockets(server, services.rooms, services.roomAccess, logger);
  emptyRooms.start();
  deliveryWorker.start();
  jobWorker.start();
  // The project database starts on first use (GraphQL, `svc project`, a project integration's delivery), so an
  // idle service holds no PostgreSQL; its CLI socket listens from the start, before anyone is told the service is up.
  const localSql = await serveLocalSql(core.project, config.dataDir).catch((err: unknown) => {
    logger.error('the project database socket could not start', { error: err instanceof Error ? err.message : String(err) });
    return { close: async () => undefined };
  });
  const listening = https
    ? `https://localhost:${portOf(server)} (http on ${portOf(https.redirector)} for certificates and redirects, `
    : `http://localhost:${portOf(server)} (`;
  // The CLI beside it (`svc dashboard-link`, `svc project keys`) prints this base URL without the environment repeated.
  recordRunningService(config.dataDir, config.baseUrl);
  process.stdout.write(`svc listening on ${listening}base URL ${config.baseUrl}, data in ${config.dataDir})\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    const started = Date.now();
    // The worker stops claiming at once (not after the last HTTP connection closed), so a backlog
    // cannot keep it busy; attempts still in flight at the deadline are left leased and are repeated
    // at the next start, as after a crash.
    emptyRooms.stop();
    services.rooms.close();
    roomSockets.close();
    // Recordings finish their files (one SIGINT to each ffmpeg) before the workers go.
    const recordingsFinished = services.rooms.recordings.stopAll();
    const closed = Promise.all([
      new Promise<void>((resolve) => server.close(() => resolve())),
      https?.stopCompanions(),
      deliveryWorker.stop(),
      jobWorker.stop(),
      recordingsFinished.then(() => media?.close()),
      turn?.close(),
    ]).then(async () => {
      await localSql.close();
      await core.project.close();
    });
    server.closeIdleConnections();
    let deadline: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>((resolve) => (deadline = setTimeout(() => resolve('timed out'), STOP_WAIT_MS)));
    void Promise.race([closed.then(() => 'stopped' as const), timedOut]).then((outcome) => {
      clearTimeout(deadline);
      if (outcome === 'timed out') {
        server.closeAllConnections();
        logger.warn('stopped before everything finished; attempts in flight are repeated at the next start', {
          waited_ms: Date.now() - started,
        });
      }
      forgetRunningService(config.dataDir);
      core.close();
      process.exit(outcome === 'stopped' ? 0 : 1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** One mediasoup worker per configured slot, each with its WebRtcServer on its slice of the RTC ports. */
function startMediaWorkers(config: Config, logger: Logger): Promise<WorkerPool> {
  const { workers, minPort, maxPort, listenIp, announcedIp } = config.rtc;
  return WorkerPool.start({ workers, minPort, maxPort, listenIp, announcedAddress: announcedIp, logger });
}

main().catch((err: unknown) => {
  process.stderr.write(`svc failed to start: ${err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
});
