import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  createMeeting,
  hostLink,
  joinRoom,
  launchBrowser,
  roomServiceEnv,
  roomUrl,
  saveScreenshot,
  waitForScreen,
} from './support/browser';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(180_000);

const LOOKS = [
  { name: 'desktop-light', viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
  { name: 'desktop-dark', viewport: { width: 1280, height: 800 }, colorScheme: 'dark' },
  { name: 'phone-light', viewport: { width: 390, height: 844 }, colorScheme: 'light' },
  { name: 'phone-dark', viewport: { width: 390, height: 844 }, colorScheme: 'dark' },
] as const;

const TIME_ZONE = 'Asia/Tokyo';

/** The start time as the page should show it: the viewer's clock (their zone), in their language. */
function localTime(iso: string, locale: string): string {
  return new Date(iso).toLocaleTimeString([locale], { hour: '2-digit', minute: '2-digit', timeZone: TIME_ZONE });
}

/** The English start line: the time alone when the meeting is today in the viewer's zone, else with its date. */
function startsAtLine(iso: string): string {
  const day = (d: Date) => d.toLocaleDateString('en-US', { timeZone: TIME_ZONE });
  const time = localTime(iso, 'en-US');
  if (day(new Date(iso)) === day(new Date())) return `Starts at ${time} (your time)`;
  const date = new Date(iso).toLocaleDateString(['en-US'], { weekday: 'short', day: 'numeric', month: 'short', timeZone: TIME_ZONE });
  return `Starts ${date} at ${time} (your time)`;
}

describe('the room page before a meeting opens, and host links in the address bar', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let contexts: BrowserContext[] = [];
  let pageErrors: string[] = [];

  /** A page in a new browser context (its own storage: another browser, as far as the service can tell). */
  const open = async (
    url: string,
    opts: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark'; locale?: string } = {},
  ): Promise<Page> => {
    const context = await browser.newContext({
      viewport: opts.viewport ?? { width: 1280, height: 800 },
      colorScheme: opts.colorScheme ?? 'light',
      locale: opts.locale ?? 'en-US',
      timezoneId: TIME_ZONE,
    });
    contexts.push(context);
    return openIn(context, url);
  };
  const openIn = async (context: BrowserContext, url: string): Promise<Page> => {
    const page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(url);
    await page.locator('[data-testid=prejoin], [data-testid=unavailable]').first().waitFor({ timeout: 15_000 });
    return page;
  };

  beforeAll(async () => {
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    [svc, browser] = await Promise.all([startService(dataDir, roomServiceEnv()), launchBrowser()]);
  }, 60_000);

  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    contexts = [];
    const errors = pageErrors;
    pageErrors = [];
    expect(errors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an early guest sees when the meeting starts (their time, en/de/fr), waits, and joins by itself when a host opens it', async () => {
    const startsAt = new Date(Math.ceil((Date.now() + 3 * 3600_000) / 60_000) * 60_000).toISOString();
    const meeting = await createMeeting(svc.url, key, { title: 'Quarterly planning', scheduled_at: startsAt });
    expect((await call(svc.url, 'GET', `/rooms/v1/${meeting.code}`)).body).toMatchObject({ open: false, starts_at: startsAt });

    for (const [lang, locale, words] of [
      ['en', 'en-US', /^Starts .*\(your time\)/],
      ['de', 'de-DE', /^Beginnt .*um .*\(Ihre Zeit\)/],
      ['fr', 'fr-FR', /^Commence .*à .*\(votre heure\)/],
    ] as const) {
      const page = await open(roomUrl(svc.url, meeting.code, { lang }), { locale });
      const notice = page.getByTestId('starts-at').locator('strong');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(words);
      expect(await notice.textContent()).toContain(localTime(startsAt, locale));
      if (lang !== 'en') await saveScreenshot(page, `room-early-prejoin-${lang}`);
      await page.context().close();
    }

    for (const look of LOOKS) {
      const page = await open(roomUrl(svc.url, meeting.code, { name: 'Grace' }), {
        viewport: look.viewport,
        colorScheme: look.colorScheme,
      });
      await page.getByTestId('starts-at').waitFor();
      await saveScreenshot(page, `room-early-prejoin-${look.name}`);
      await page.getByRole('button', { name: 'Join', exact: true }).click();
      const screen = page.getByTestId('not-open');
      await screen.waitFor({ timeout: 15_000 });
      expect(await screen.getByTestId('starts-at').textContent()).toBe(startsAtLine(startsAt));
      await saveScreenshot(page, `room-early-waiting-${look.name}`);
      // "Stop waiting" goes back to the pre-join screen at once.
      await page.getByRole('button', { name: 'Stop waiting' }).click();
      await page.getByTestId('prejoin').waitFor({ timeout: 5_000 });
      await page.context().close();
    }
    const status = async () => (await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}`, key)).body.status;
    expect(await status()).toBe('scheduled');

    const waitingGuest = await open(roomUrl(svc.url, meeting.code, { name: 'Ines' }));
    await waitingGuest.getByRole('button', { name: 'Join', exact: true }).click();
    await waitingGuest.getByTestId('not-open').waitFor({ timeout: 15_000 });
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana'));
    expect(await joinRoom(host)).toBe('room');
    expect(await status()).toBe('live');
    // The waiting guest's page looks again by itself (after 2 s, 4 s, 8 s, ... at most 30 s apart) and goes in.
    expect(await waitForScreen(waitingGuest, 45_000)).toBe('room');
    await saveScreenshot(waitingGuest, 'room-early-joined-by-itself');
  });

  it('strips the host token from the address bar; the same browser rejoins as host after a reload, another browser is refused', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Host link' });
    const link = await hostLink(svc.url, key, meeting.id, 'Hiro');
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: TIME_ZONE });
    contexts.push(context);
    const host = await openIn(context, link);
    expect(await joinRoom(host)).toBe('room');
    expect(host.url()).not.toContain('host=');
    expect(new URL(host.url()).searchParams.get('name')).toBe('Hiro');
    await host.getByTestId('end-meeting').waitFor();

    // A reload (the address no longer has the token) keeps this tab a host; so does a second tab of the same browser with the link.
    await host.reload();
    await host.getByTestId('prejoin').waitFor();
    expect(await joinRoom(host)).toBe('room');
    await host.getByTestId('end-meeting').waitFor();
    expect(host.url()).not.toContain('host=');

    // Someone else who got the full link (say, copied before this fix) is refused as host and told why.
    const other = await open(link.replace('name=Hiro', 'name=Mallory'));
    await other.getByRole('button', { name: 'Join', exact: true }).click();
    const alert = other.locator('#join-error');
    await alert.filter({ hasText: 'already used in another browser' }).waitFor({ timeout: 15_000 });
    expect(other.url()).not.toContain('host=');
    await saveScreenshot(other, 'room-host-link-taken');
    // Join again comes in as a guest: no End button.
    expect(await joinRoom(other)).toBe('room');
    await other.getByTestId('leave').waitFor();
    expect(await other.getByTestId('end-meeting').isHidden()).toBe(true);
    const people = await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/participants`, key);
    const roles = (people.body.data as { name: string; role: string }[]).map((p) => `${p.name}:${p.role}`).sort();
    expect(roles).toEqual(['Hiro:host', 'Hiro:host', 'Mallory:guest']);
  });
});
