import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { createMeeting, freePort, launchBrowser, roomServiceEnv, saveScreenshot } from './support/browser';
import { startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

// A team that runs `npm start` on a server and opens it over plain http on its host name: browsers give such a
// page no camera, microphone or WebRTC. The room says so, in its languages, and the service warns at start.

const HOST_NAME = 'meet.example.test';

describe('a room opened over plain http on a host name that is not loopback', () => {
  let dataDir: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let port: number;
  let code: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    port = await freePort();
    [svc, browser] = await Promise.all([
      startService(dataDir, roomServiceEnv({ PORT: String(port), SVC_BASE_URL: `http://${HOST_NAME}:${port}` })),
      launchBrowser({ extraArgs: [`--host-resolver-rules=MAP ${HOST_NAME} 127.0.0.1`] }),
    ]);
    code = (await createMeeting(svc.url, unlimitedKey(dataDir), { title: 'Team sync' })).code;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is refused by the browser, and the room page says https is needed with the https address to try', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`http://${HOST_NAME}:${port}/m/${code}?name=Ada`);
    const screen = page.getByTestId('insecure');
    await screen.waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { isSecureContext: boolean }).isSecureContext)).toBe(false);
    expect(await screen.locator('h1').textContent()).toBe('This room needs a secure (https) connection');
    expect(await screen.locator('p').textContent()).toContain(`plain http at ${HOST_NAME}:${port}`);
    expect(await page.getByTestId('open-https').getAttribute('href')).toBe(`https://${HOST_NAME}/m/${code}?name=Ada`);
    expect(await page.getByRole('button', { name: 'Join' }).count()).toBe(0);
    await saveScreenshot(page, 'room-insecure-context');

    for (const [lang, title] of [
      ['de', 'Dieser Raum braucht eine sichere Verbindung (https)'],
      ['fr', 'Cette salle nécessite une connexion sécurisée (https)'],
    ]) {
      await page.goto(`http://${HOST_NAME}:${port}/m/${code}?lang=${lang}`);
      await screen.waitFor({ timeout: 15_000 });
      expect(await screen.locator('h1').textContent()).toBe(title);
    }
    await saveScreenshot(page, 'room-insecure-context-fr');
    await context.close();
  });

  it('works on loopback, which browsers treat as secure', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/m/${code}`);
    await page.getByTestId('prejoin').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('insecure').count()).toBe(0);
    await context.close();
  });

  it('made the service warn at start that rooms cannot work at its base URL', () => {
    expect(svc.stderr()).toContain(`SVC_BASE_URL http://${HOST_NAME}:${port} is plain http on a host that is not loopback`);
  });
});
