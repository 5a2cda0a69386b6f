import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import {
  createMeeting,
  freePort,
  joinRoom,
  launchBrowser,
  openPage,
  pollUntil,
  receiveStats,
  roomServiceEnv,
  roomUrl,
  saveScreenshot,
  waitForCount,
  waitForMediaFlowing,
  waitForPreview,
  waitForText,
  type RoomPage,
} from './support/browser';
import { call, isProcessRunning, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

describe('the room page in Chromium survives a restart of the service', () => {
  let dataDir: string;
  let svc: ServiceProcess;
  let browser: Browser;
  const pages: RoomPage[] = [];

  beforeAll(async () => {
    dataDir = tempDataDir();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await Promise.all(pages.map((p) => p.close()));
    await browser?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('both pages reconnect on their own and receive media again', async () => {
    const key = unlimitedKey(dataDir);
    const env = roomServiceEnv({ PORT: String(await freePort()) });
    svc = await startService(dataDir, env);
    const meeting = await createMeeting(svc.url, key, { title: 'Hiccup' });
    for (const name of ['Ann', 'Ben']) {
      const p = await openPage(browser, roomUrl(svc.url, meeting.code, { name }), name === 'Ben' ? { width: 390, height: 844 } : undefined);
      pages.push(p);
      if (name === 'Ben') {
        await waitForPreview(p.page);
        await saveScreenshot(p.page, 'room-phone-prejoin');
      }
      expect(await joinRoom(p.page)).toBe('room');
    }
    for (const { page } of pages) {
      await waitForCount(page, '[data-testid=tile]', 2);
      await waitForMediaFlowing(page);
    }
    await saveScreenshot(pages[1]!.page, 'room-phone-in-call');
    const before = await Promise.all(pages.map((p) => receiveStats(p.page)));

    const workerPid: number = (await call(svc.url, 'GET', '/healthz')).body.workers[0].pid;
    await svc.stop('SIGKILL');
    // The orphaned media worker exits once it notices its parent is gone; until then it holds the RTC ports.
    await pollUntil('the old media worker to exit', () => !isProcessRunning(workerPid), 10_000);
    await Promise.all(pages.map((p) => p.page.getByTestId('reconnecting').waitFor({ timeout: 10_000 })));
    await saveScreenshot(pages[0]!.page, 'room-reconnecting');
    const restartedAt = Date.now();
    svc = await startService(dataDir, env);

    for (const [i, { page }] of pages.entries()) {
      await page.getByTestId('reconnecting').waitFor({ state: 'hidden', timeout: 20_000 });
      await waitForCount(page, '[data-testid=tile]', 2);
      await waitForText(page, '[data-testid=participant-count]', '2');
      await waitForMediaFlowing(page, { sinceTransport: before[i]!.transportId!, timeoutMs: 20_000 });
    }
    // eslint-disable-next-line no-console -- how long a restart interrupts a call
    console.log(`room: media back on both pages ${Date.now() - restartedAt} ms after the service restarted`);
    // They came back as new peers of the restarted room.
    const after = await Promise.all(pages.map((p) => receiveStats(p.page)));
    for (const [i, stats] of after.entries()) expect(stats.peerId).not.toBe(before[i]!.peerId);
  });
});
