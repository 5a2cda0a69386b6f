import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { freePort, launchBrowser, openPage, roomServiceEnv, type RoomPage } from './browser';
import { startService, tempDataDir, unlimitedKey, type ServiceProcess } from './service-process';

/** What a room test file shares: one service with rooms, its key, one browser, and the pages of the running test. */
export interface RoomSuite {
  dataDir: string;
  key: string;
  svc: ServiceProcess;
  browser: Browser;
  /** Opens a room page that is closed after the test; a page error in it fails the test. */
  open(url: string, viewport?: { width: number; height: number }): Promise<RoomPage>;
  /** Makes a page opened another way (its own context) closed and checked like those of `open`. */
  track(page: RoomPage): RoomPage;
}

/**
 * Registers the hooks of a room test file (start, after-each page check, stop) and returns what they set up.
 * `fixedBaseUrl`: the service listens on a port chosen first and knows it as SVC_BASE_URL (the embed's URLs need it);
 * `env`: more of the service's environment.
 */
export function roomSuite(options: { fixedBaseUrl?: boolean; env?: Record<string, string> } = {}): RoomSuite {
  let opened: RoomPage[] = [];
  const suite = {
    open: async (url: string, viewport?: { width: number; height: number }) => suite.track(await openPage(suite.browser, url, viewport)),
    track: (page: RoomPage) => {
      opened.push(page);
      return page;
    },
  } as RoomSuite;

  beforeAll(async () => {
    suite.dataDir = tempDataDir();
    suite.key = unlimitedKey(suite.dataDir);
    const port = options.fixedBaseUrl ? await freePort() : null;
    const env = roomServiceEnv({ ...(port ? { PORT: String(port), SVC_BASE_URL: `http://127.0.0.1:${port}` } : {}), ...options.env });
    [suite.svc, suite.browser] = await Promise.all([startService(suite.dataDir, env), launchBrowser()]);
  }, 60_000);

  afterEach(async () => {
    const failed = opened.flatMap((p) => p.logs).filter((l) => l.startsWith('pageerror'));
    await Promise.all(opened.map((p) => p.close()));
    opened = [];
    expect(failed).toEqual([]);
  });

  afterAll(async () => {
    await suite.browser?.close();
    await suite.svc?.stop();
    fs.rmSync(suite.dataDir, { recursive: true, force: true });
  });
  return suite;
}
