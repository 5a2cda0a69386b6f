import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePort, launchBrowser, saveScreenshot } from './browser';
import { startService, tempDataDir, type ServiceProcess } from './service-process';

const ROOT = path.resolve(__dirname, '../..');

/** Debian's chromium, headless, through playwright-core (the room tests' launcher). */
export function launchChromium(): Promise<Browser> {
  return launchBrowser();
}

/** Saves a full-page screenshot to test/artifacts/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, name, { fullPage: true });
}

export { freePort };

/** The one-time sign-in link's token the first start printed, and the owner key printed on its own line. */
export function firstStartSecrets(stdout: string): { key: string; linkToken: string } {
  const key = /^(svc_sk_[0-9a-z]+)$/m.exec(stdout)?.[1];
  const linkToken = /\/sign-in#token=(\S+)$/m.exec(stdout)?.[1];
  if (!key || !linkToken) throw new Error(`first start printed no key or sign-in link:\n${stdout}`);
  return { key, linkToken };
}

/** Runs `svc users set-password EMAIL` with the password on stdin. */
export function setPassword(dataDir: string, email: string, password: string): { code: number | null; stderr: string } {
  const res = spawnSync(process.execPath, [path.join(ROOT, 'service/bin/svc.js'), 'users', 'set-password', email], {
    env: { ...process.env, SVC_DATA_DIR: dataDir },
    input: `${password}\n`,
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: res.status, stderr: res.stderr };
}

/** A service process on a fresh data directory, Chromium, and a 1280 px page signed in with the first start's link. */
export interface SignedInDashboard {
  dataDir: string;
  svc: ServiceProcess;
  browser: Browser;
  page: Page;
  /** The owner key the first start printed. */
  ownerKey: string;
  /** What the page's console reported as refused by the Content-Security-Policy. */
  cspViolations: string[];
  close(): Promise<void>;
}

/** Starts the service (with `env`) and Chromium, and signs a page in with the one-time link. */
export async function startSignedIn(env: Record<string, string> = {}): Promise<SignedInDashboard> {
  const dataDir = tempDataDir();
  const [svc, browser] = await Promise.all([startService(dataDir, env), launchChromium()]);
  const { key, linkToken } = firstStartSecrets(svc.stdout());
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  await page.goto(`${svc.url}/sign-in#token=${linkToken}`);
  await page.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
  return {
    dataDir,
    svc,
    browser,
    page,
    ownerKey: key,
    cspViolations,
    async close() {
      await browser.close();
      await svc.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
