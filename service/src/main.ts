import { ConfigError, insecureBaseUrlWarning, loadConfig } from './config';
import { bootstrap } from './bootstrap';
import { SCOPES } from './keys/scopes';
import { portOf } from './http/server';
import { listenEarly, startService } from './runtime';
import { forgetRunningService, recordRunningService } from './shared/running-service';

/** Composition root: config -> database + migrations -> the runtime (HTTP, workers); stops gracefully on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let config = loadConfig();
  // Plain HTTP binds first: with PORT=0 the base URL (join links, download URLs) then names the port really used.
  const early = config.tls.mode === 'off' ? await listenEarly(config.port, config.host) : undefined;
  if (early && config.port === 0) config = loadConfig({ ...process.env, PORT: String(portOf(early.server)) });
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

  const running = await startService(core, { early });
  const { server, https } = running;
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
    // The runtime waits at most 9 s, which leaves time to close the database and exit within 10 s.
    void running.stop().then((outcome) => {
      forgetRunningService(config.dataDir);
      core.close();
      process.exit(outcome === 'stopped' ? 0 : 1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`svc failed to start: ${err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
});
