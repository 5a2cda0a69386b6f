import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { firstStartSecrets, launchChromium } from './support/dashboard-browser';
import { saveScreenshot } from './support/browser';
import { startService, tempDataDir, waitFor, type ServiceProcess } from './support/service-process';

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

  it('runs POST /meetings with its prefilled example on the first click, and follows the light or dark setting (desktop and phone)', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    try {
      await page.goto(`${svc.url}/api/v1/public/docs#/Meetings/createMeeting`);
      await page.evaluate(
        (key) =>
          (globalThis as unknown as { ui: { preauthorizeApiKey(n: string, k: string): void } }).ui.preauthorizeApiKey('bearerAuth', key),
        firstStartSecrets(svc.stdout()).key,
      );
      const create = page.locator('.opblock-post').filter({ has: page.locator('.opblock-summary-path', { hasText: /^\/meetings$/ }) });
      await create.first().waitFor();
      if (!(await create.first().locator('.opblock-body').isVisible())) await create.first().locator('.opblock-summary').click();
      await create.first().getByRole('button', { name: 'Execute' }).click();
      await create.first().locator('.live-responses-table .response-col_status').filter({ hasText: '201' }).waitFor();
      // Dark: light text (Swagger UI's html.dark-mode styles); light: dark text.
      const textColor = () => page.evaluate<string>("getComputedStyle(document.querySelector('.swagger-ui .info .title')).color");
      const isDark = (rgb: string) =>
        rgb
          .match(/\d+/g)!
          .slice(0, 3)
          .reduce((sum, v) => sum + Number(v), 0) > 500;
      expect(isDark(await textColor())).toBe(false);
      await saveScreenshot(page, 'api-console-desktop-light');
      await page.emulateMedia({ colorScheme: 'dark' });
      await waitFor(async () => isDark(await textColor()), 5_000);
      await saveScreenshot(page, 'api-console-desktop-dark');
      await page.setViewportSize({ width: 390, height: 844 });
      await saveScreenshot(page, 'api-console-phone-dark');
      await page.emulateMedia({ colorScheme: 'light' });
      await waitFor(async () => !isDark(await textColor()), 5_000);
      await saveScreenshot(page, 'api-console-phone-light');
    } finally {
      await context.close();
    }
  });
});
