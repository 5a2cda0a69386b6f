import type { Server } from 'node:http';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { bootstrap } from './bootstrap';
import { SCOPES } from './keys/scopes';
import { createDeliveryWorker } from './services';
import { serveLocalSql } from './project/project.socket';

/** Composition root: config -> database + migrations -> HTTP -> background workers; stops gracefully on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const core = bootstrap(config);
  const { logger, services } = core;
  if (core.migrationsApplied.length > 0) logger.info('migrations applied', { migrations: core.migrationsApplied });
  const { owner, created } = services.identity.ensureOwner();
  if (created) {
    const { key } = services.keys.create({ userId: owner.id, name: 'Owner key (first start)', scopes: [...SCOPES] });
    process.stdout.write(`First start: an all-scopes API key was created. It is shown only this once:\n${key}\n`);
  }

  const deliveryWorker = createDeliveryWorker(services, config, logger, { project: core.project });
  const app = createApp({ config, services, logger, project: core.project });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  deliveryWorker.start();
  // The project database starts beside the API (PGlite's first start takes seconds); GraphQL requests wait for it.
  const localSql = core.project.start().then(
    () => serveLocalSql(core.project, config.dataDir),
    (err: unknown) => {
      logger.error('project database failed to start', { error: err instanceof Error ? err.message : String(err) });
      return { close: async () => undefined };
    },
  );
  process.stdout.write(`svc listening on http://localhost:${port} (base URL ${config.baseUrl}, data in ${config.dataDir})\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    server.close(() => {
      void deliveryWorker
        .stop()
        .then(() => localSql)
        .then((s) => s.close())
        .then(() => core.project.close())
        .then(() => {
          core.close();
          process.exit(0);
        });
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`svc failed to start: ${err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
});
