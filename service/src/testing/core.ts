import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bootstrap, type Core } from '../bootstrap';
import { loadConfig } from '../config';
import { ManualClock } from '../shared/clock';
import { createLogger } from '../shared/logger';

/** A core started as production starts it, on a fresh data directory in a temp dir, with a manual clock. */
export interface TestCore extends Core {
  clock: ManualClock;
  dataDir: string;
  /** Closes the database and removes the data directory. */
  dispose(): void;
}

/** Bootstraps the domain on a new temp data directory; `env` adds configuration variables. */
export function startTestCore(env: Record<string, string> = {}, clock = new ManualClock(Date.now())): TestCore {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent', PORT: '0', ...env });
  const core = bootstrap(config, { clock, logger: createLogger(process.env.SVC_TEST_LOG_LEVEL === 'warn' ? 'warn' : 'silent') });
  return {
    ...core,
    clock,
    dataDir,
    dispose() {
      core.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
