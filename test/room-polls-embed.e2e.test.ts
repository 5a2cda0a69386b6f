import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  createMeeting,
  freePort,
  hostLink,
  joinRoom,
  launchBrowser,
  openPage,
  pollUntil,
  roomServiceEnv,
  waitForCount,
  type RoomPage,
} from './support/browser';
import { startEmbedHost, type EmbedHost } from './support/embed-host';
import { clickTool } from './support/room-of-three';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(180_000);

type Scope = { __events: { type: string; [k: string]: unknown }[] };

describe('the embed events of polls and breakout rooms (Chromium, the real SFU, an embedding page)', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let embedHost: EmbedHost;
  const opened: RoomPage[] = [];

  beforeAll(async () => {
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    // A fixed port, so that the embed URLs (built from the base URL) point at this process.
    const port = await freePort();
    [svc, browser, embedHost] = await Promise.all([
      startService(dataDir, roomServiceEnv({ PORT: String(port), SVC_BASE_URL: `http://127.0.0.1:${port}` })),
      launchBrowser(),
      startEmbedHost(),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(opened.map((p) => p.close()));
    await browser?.close();
    await embedHost?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an embedded guest hears poll opened/closed (with the results) and breakout joined/left', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Embedded workshop' });
    const origins = await call(svc.url, 'PUT', `/api/v1/public/meetings/${meeting.code}/embed-origins`, key, {
      origins: [embedHost.origin('localhost')],
    });
    expect(origins.status).toBe(200);
    const host = await openPage(browser, await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    opened.push(host);
    expect(await joinRoom(host.page)).toBe('room');

    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    const guest = await context.newPage();
    opened.push({ page: guest, context, logs: [], close: () => context.close() });
    await guest.goto(
      embedHost.url('localhost', 'esm', {
        serviceUrl: svc.url,
        options: { meetingCode: meeting.code, name: 'Eve Embedded', autoJoin: true },
      }),
    );
    const eventsOf = (page: Page) => page.evaluate(() => (globalThis as unknown as Scope).__events);
    const waitForEvent = (type: string, match: (e: Record<string, unknown>) => boolean) =>
      pollUntil(`event ${type}`, async () => (await eventsOf(guest)).find((e) => e.type === type && match(e)), 45_000);
    await waitForEvent('joined', () => true);
    await waitForCount(host.page, '[data-testid=tile]', 2);

    // A poll: opened without counts for a guest, closed with the results.
    await clickTool(host.page, 'open-polls');
    await host.page.getByTestId('new-poll').click();
    const dialog = host.page.getByTestId('poll-dialog');
    await dialog.getByLabel('Question').fill('Ship it?');
    await dialog.getByLabel('Option 1', { exact: true }).fill('Yes');
    await dialog.getByLabel('Option 2', { exact: true }).fill('No');
    await dialog.getByTestId('poll-create').click();
    const openedPoll = await waitForEvent('poll', (e) => e.action === 'opened');
    expect(openedPoll.poll).toMatchObject({
      question: 'Ship it?',
      multiple: false,
      anonymous: false,
      options: [
        { text: 'Yes', votes: null },
        { text: 'No', votes: null },
      ],
    });
    const frame = guest.frameLocator('#meeting iframe');
    await clickTool(frame, 'open-polls');
    await frame.getByTestId('poll-card').first().getByLabel('Yes', { exact: true }).check();
    await frame.getByTestId('poll-vote').click();
    await frame.getByTestId('poll-voted').waitFor();
    await host.page.getByTestId('poll-close').click();
    const closedPoll = await waitForEvent('poll', (e) => e.action === 'closed');
    expect((closedPoll.poll as { options: { votes: number }[] }).options.map((o) => o.votes)).toEqual([1, 0]);

    // A breakout room: joined with one click inside the frame, left when the host closes the rooms.
    await clickTool(host.page, 'open-breakouts');
    await host.page.getByTestId('breakout-count').fill('1');
    await host.page.getByTestId('breakout-create').click();
    await host.page.locator('[data-testid=breakout-assign][data-name="Eve Embedded"]').selectOption({ label: 'Room 1' });
    await host.page.locator('[data-testid=breakout-room]').first().getByText('Eve Embedded').waitFor();
    await host.page.getByTestId('breakout-open').click();
    await frame.getByTestId('breakout-join').click();
    const joined = await waitForEvent('breakout', (e) => e.action === 'joined');
    expect(joined.room).toMatchObject({ name: 'Room 1' });
    await host.page.getByTestId('breakout-close').click();
    const left = await waitForEvent('breakout', (e) => e.action === 'left');
    expect(left.room).toEqual(joined.room);
    await waitForCount(host.page, '[data-testid=tile]', 2);
  });
});
