import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { firstStartSecrets, launchChromium } from './support/dashboard-browser';
import { startService, tempDataDir, type ServiceProcess } from './support/service-process';

jest.setTimeout(60_000);

describe('API console (/api/v1/public/docs) in Chromium, under its strict page headers', () => {
  let dataDir: string;
  let svc: ServiceProcess;
  let browser: Browser;
  beforeAll(async () => {
    dataDir = tempDataDir();
    [svc, browser] = await Promise.all([startService(dataDir), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('renders the operations and runs one with a key, with nothing refused by the Content-Security-Policy', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    page.on('pageerror', (err) => refused.push(`pageerror: ${err.message}`));
    const response = await page.goto(`${svc.url}/api/v1/public/docs`);
    expect(response!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");

    const getMe = page.locator('.opblock').filter({ hasText: 'The key, its owner and the organizations it can act in' });
    await getMe.waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await page.evaluate(
      (key) =>
        (globalThis as unknown as { ui: { preauthorizeApiKey(n: string, k: string): void } }).ui.preauthorizeApiKey('bearerAuth', key),
      firstStartSecrets(svc.stdout()).key,
    );
    await getMe.locator('.opblock-summary').click();
    await getMe.getByRole('button', { name: 'Execute' }).click();
    await getMe.locator('.live-responses-table .response-col_status').filter({ hasText: '200' }).waitFor();
    expect(refused).toEqual([]);
  });
});
