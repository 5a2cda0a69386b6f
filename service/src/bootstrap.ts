import type { Config } from './config';
import { openDatabase } from './db/connection';
import { restrictDataDir } from './db/data-dir';
import { migrate } from './db/migrate';
import { ProjectDatabase } from './project/project.database';
import { createServices, recordingsDir, type Services } from './services';
import { systemClock, type Clock } from './shared/clock';
import { createLogger, type Logger } from './shared/logger';
import { loadMasterKey } from './shared/secret-box';

/** The domain on its migrated database: what the service, the CLI, the test harness and the benchmarks start from. */
export interface Core {
  config: Config;
  logger: Logger;
  services: Services;
  /** Migrations this start applied (empty when the database was current). */
  migrationsApplied: string[];
  /** The project database (opened on first use or by `start()`; close it with `close()`). */
  project: ProjectDatabase;
  /** Closes the database. */
  close(): void;
}

/** The one start-up sequence: open the database, apply migrations, load the master key, build the services. */
export function bootstrap(config: Config, opts: { clock?: Clock; logger?: Logger } = {}): Core {
  const logger = opts.logger ?? createLogger(config.logLevel);
  restrictDataDir(config.dataDir, [recordingsDir(config.dataDir), ProjectDatabase.dataDirOf(config.dataDir)]);
  const db = openDatabase(config.databasePath);
  const migrationsApplied = migrate(db);
  const services = createServices(db, config, opts.clock ?? systemClock, loadMasterKey(config.dataDir, config.masterKey), logger);
  const project = new ProjectDatabase({ dataDir: config.dataDir, baseUrl: config.baseUrl, ...config.project });
  return { config, logger, services, migrationsApplied, project, close: () => db.close() };
}
