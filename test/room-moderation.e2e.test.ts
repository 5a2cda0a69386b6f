import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  createMeeting,
  eventually,
  freePort,
  hostLink,
  joinRoom,
  launchBrowser,
  openPage,
  peerIdOf,
  pollUntil,
  receiveStats,
  roomServiceEnv,
  roomUrl,
  saveScreenshot,
  waitForCount,
  type RoomPage,
} from './support/browser';
import { startEmbedHost, type EmbedHost } from './support/embed-host';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(180_000);

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** The names in the host's People list, top to bottom, with the hand order shown next to each (null: hand down). */
async function peopleOrder(page: Page): Promise<[string, string | null][]> {
  const rows = page.locator('[data-testid=participant]');
  const out: [string, string | null][] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    const name = (await row.locator('.person-name').textContent())!.replace(/(Host|Co-host)$/, '');
    const hand = row.locator('[data-testid=hand-order] > span[aria-hidden=true]');
    out.push([name, (await hand.count()) ? await hand.textContent() : null]);
  }
  return out;
}

/** The page scope the screenshot helpers run in (the test project has no DOM types). */
interface DocScope {
  document: { getAnimations(): { playState: string; constructor: { name: string } }[]; querySelectorAll(s: string): { remove(): void }[] };
}

/**
 * Screenshots of `page` in light and dark (the room follows the viewer's colour scheme), each once the colour
 * transitions have finished; the join toasts are cleared first so they do not cover the panel.
 */
async function lightAndDark(page: Page, name: string): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as DocScope).document.querySelectorAll('.toast').forEach((t) => t.remove()));
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.waitForFunction(() =>
      (globalThis as unknown as DocScope).document
        .getAnimations()
        .every((a) => a.constructor.name !== 'CSSTransition' || a.playState === 'finished'),
    );
    await saveScreenshot(page, `${name}-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Opens the host's menu for the person called `name` in People and picks `item`. */
async function personAction(page: Page, name: string, item: string): Promise<void> {
  const row = page.locator('[data-testid=participant]', { hasText: name });
  await row.getByTestId('person-menu').click();
  await row.getByTestId(item).click();
}

describe('hands, reactions and moderation in Chromium through the real SFU', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let embedHost: EmbedHost;
  let opened: RoomPage[] = [];

  const open = async (url: string, viewport = DESKTOP) => {
    const p = await openPage(browser, url, viewport);
    opened.push(p);
    return p;
  };

  beforeAll(async () => {
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    // A fixed port, so that the embed URLs (built from the base URL) point at this process.
    const port = await freePort();
    [svc, browser, embedHost] = await Promise.all([
      startService(
        dataDir,
        roomServiceEnv({ PORT: String(port), SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_ROOM_RATE_LIMIT_PER_SECOND: '1000' }),
      ),
      launchBrowser(),
      startEmbedHost(),
    ]);
  }, 60_000);

  afterEach(async () => {
    const errors = opened.flatMap((p) => p.logs).filter((l) => l.startsWith('pageerror'));
    await Promise.all(opened.map((p) => p.close()));
    opened = [];
    expect(errors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await embedHost?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('host and two guests: hands in order, lower all, reactions on tiles, mute and ask to unmute, permissions, co-host admits, lock', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Design review', settings: { waiting_room: true } });
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    const ann = await open(roomUrl(svc.url, meeting.code, { name: 'Ann Guest' }));
    const bob = await open(roomUrl(svc.url, meeting.code, { name: 'Bob Guest' }));
    for (const guest of [ann, bob]) {
      expect(await joinRoom(guest.page)).toBe('waiting');
      await host.page.getByTestId('admit').first().click();
      await guest.page.getByTestId('room').waitFor({ timeout: 15_000 });
    }
    await waitForCount(host.page, '[data-testid=tile]', 3);
    const annId = (await peerIdOf(ann.page))!;

    // Hands: Bob first, then Ann; the host's People lists them first, in that order.
    await bob.page.getByTestId('raise-hand').click();
    await eventually(async () => expect(await host.page.getByTestId('hand-count').textContent()).toBe('1'));
    await ann.page.getByTestId('raise-hand').click();
    await eventually(async () => expect(await ann.page.getByTestId('raise-hand').getAttribute('aria-pressed')).toBe('true'));
    await host.page.getByTestId('open-people').click();
    await eventually(async () =>
      expect(await peopleOrder(host.page)).toEqual([
        ['Bob Guest', '1'],
        ['Ann Guest', '2'],
        ['Hana Host (You)', null],
      ]),
    );
    const annRow = host.page.locator('[data-testid=participant]', { hasText: 'Ann Guest' });
    await annRow.getByTestId('person-menu').click();
    await annRow.getByTestId('person-actions').waitFor();
    await lightAndDark(host.page, 'room-moderation-people-desktop');
    await host.page.keyboard.press('Escape');

    // Phone width: People over the stage, then the toolbar's "More" menu with every feature's button.
    await host.page.setViewportSize(PHONE);
    await lightAndDark(host.page, 'room-moderation-people-phone');
    await host.page.getByTestId('open-people').evaluate((el) => (el as unknown as { click(): void }).click());
    await host.page.getByTestId('more').click();
    const more = host.page.getByTestId('more-menu');
    await more.waitFor();
    const items = await more.getByRole('menuitemcheckbox').or(more.getByRole('menuitem')).allTextContents();
    expect(items.join('|')).toMatch(/People.*\|.*Raise hand|Raise hand.*\|.*People/);
    // Keyboard: the first item has focus, arrows move, Escape closes and gives focus back to More.
    await host.page.keyboard.press('ArrowDown');
    const focusedLabel = await host.page.evaluate(
      () => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent,
    );
    expect(items).toContain(focusedLabel);
    await lightAndDark(host.page, 'room-moderation-more-phone');
    await host.page.keyboard.press('Escape');
    await more.waitFor({ state: 'hidden' });
    expect(
      await host.page
        .getByTestId('more')
        .evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement),
    ).toBe(true);
    await host.page.setViewportSize(DESKTOP);
    if (!(await host.page.getByTestId('participant-list').isVisible())) await host.page.getByTestId('open-people').click();

    await host.page.getByTestId('lower-all-hands').click();
    await eventually(async () => expect(await host.page.getByTestId('hand-order').count()).toBe(0));
    await eventually(async () => expect(await ann.page.getByTestId('raise-hand').getAttribute('aria-pressed')).toBe('false'));

    // A reaction shows on Ann's tile on the others' pages.
    await ann.page.getByTestId('reactions').click();
    await ann.page.getByTestId('reaction-👏').click();
    for (const page of [host.page, bob.page]) {
      await page
        .locator(`.tile[data-peer-id="${annId}"] [data-testid=tile-reaction]`, { hasText: '👏' })
        .first()
        .waitFor({ timeout: 10_000 });
    }
    await saveScreenshot(bob.page, 'room-moderation-reaction');

    // Mute: the service pauses Ann's microphone; her page and Bob's show it muted.
    const annMicOnBobsTile = bob.page.locator(`.tile[data-peer-id="${annId}"] .mic-state`).first();
    await eventually(async () => expect(await annMicOnBobsTile.isHidden()).toBe(true));
    await personAction(host.page, 'Ann Guest', 'mute-peer');
    await ann.page.getByTestId('muted-by-host').waitFor({ timeout: 10_000 });
    await eventually(async () => expect(await ann.page.getByTestId('toggle-microphone').getAttribute('aria-pressed')).toBe('true'));
    await eventually(async () => expect(await annMicOnBobsTile.isVisible()).toBe(true));
    // Asking does not unmute: Ann sees the request and accepts it herself.
    await personAction(host.page, 'Ann Guest', 'ask-unmute');
    await ann.page.getByTestId('unmute-request').waitFor({ timeout: 10_000 });
    await saveScreenshot(ann.page, 'room-moderation-unmute-request');
    expect(await ann.page.getByTestId('toggle-microphone').getAttribute('aria-pressed')).toBe('true');
    await ann.page.getByTestId('accept-unmute').click();
    await eventually(async () => expect(await annMicOnBobsTile.isHidden()).toBe(true));

    // Mute all, measured at the SFU's output: the host's page stops receiving audio (Ann and Bob are paused at the
    // service), and receives it again once Ann unmutes herself.
    const audioBytes = async () => (await receiveStats(host.page)).audio.bytesReceived;
    await host.page.getByTestId('mute-all').click();
    await bob.page.getByTestId('muted-by-host').waitFor({ timeout: 10_000 });
    let previous = -1;
    const silentAt = await pollUntil(
      'no more audio bytes reaching the host',
      async () => {
        const now = await audioBytes();
        const still = now === previous;
        previous = now;
        return still && now;
      },
      15_000,
      1_000,
    );
    await ann.page.getByTestId('toggle-microphone').click();
    await pollUntil('audio reaching the host again', async () => (await audioBytes()) > silentAt + 1_000, 15_000, 250);

    // Screen sharing disallowed for guests: Bob's share button is refused (disabled); the host's is not.
    await host.page.getByTestId('allow-screen').uncheck();
    await eventually(async () => expect(await bob.page.getByTestId('toggle-screen').isDisabled()).toBe(true));
    expect(await host.page.getByTestId('toggle-screen').isDisabled()).toBe(false);

    // Co-host: Bob gets host powers and admits the next guest himself.
    await personAction(host.page, 'Bob Guest', 'make-co-host');
    await bob.page.getByTestId('made-co-host').waitFor({ timeout: 10_000 });
    const cy = await open(roomUrl(svc.url, meeting.code, { name: 'Cy Late' }));
    expect(await joinRoom(cy.page)).toBe('waiting');
    await bob.page.getByTestId('admit').click();
    await cy.page.getByTestId('room').waitFor({ timeout: 15_000 });
    await cy.close();

    // Lock: a new browser cannot get in; everyone in sees the badge.
    await host.page.getByTestId('lock-meeting').click();
    await ann.page.getByTestId('locked-badge').waitFor({ timeout: 10_000 });
    const dee = await open(roomUrl(svc.url, meeting.code, { name: 'Dee Outside' }));
    await dee.page.getByRole('button', { name: 'Join', exact: true }).click();
    await eventually(async () => expect(await dee.page.locator('#join-error').textContent()).toMatch(/locked/), 15_000);
    await saveScreenshot(dee.page, 'room-moderation-locked-refused');
    expect(await host.page.getByTestId('participant-count').textContent()).toBe('3');
  });

  it('embedded: the join command and autoJoin skip the pre-join screen; hand and reaction events arrive', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Embedded review' });
    const res = await call(svc.url, 'PUT', `/api/v1/public/meetings/${meeting.code}/embed-origins`, key, {
      origins: [embedHost.origin('localhost')],
    });
    expect(res.status).toBe(200);
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');

    type Scope = { __events: { type: string; [k: string]: unknown }[]; __meeting?: Record<string, (...args: unknown[]) => void> };
    const openHost = async (kind: 'esm' | 'react', options: Record<string, unknown>) => {
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      const page = await context.newPage();
      opened.push({ page, context, logs: [], close: () => context.close() });
      await page.goto(embedHost.url('localhost', kind, { serviceUrl: svc.url, options: { meetingCode: meeting.code, ...options } }));
      return page;
    };
    const eventsOf = (page: Page) => page.evaluate(() => (globalThis as unknown as Scope).__events);
    const waitForEvent = (page: Page, type: string, match: (e: Record<string, unknown>) => boolean = () => true) =>
      pollUntil(`event ${type}`, async () => (await eventsOf(page)).find((e) => e.type === type && match(e)), 20_000);

    // autoJoin: the room joins once ready, nobody clicks Join.
    const auto = await openHost('esm', { name: 'Eve Embedded', autoJoin: true });
    await waitForEvent(auto, 'joined', (e) => (e.participant as { name: string }).name === 'Eve Embedded');
    // The join command (React ref handle): sent before the room is ready, it is queued and then joins.
    const driven = await openHost('react', { name: 'Rex React' });
    await pollUntil('the React handle', () => driven.evaluate(() => (globalThis as unknown as Scope).__meeting !== undefined), 10_000);
    await driven.evaluate(() => (globalThis as unknown as Scope).__meeting!.join!());
    await waitForEvent(driven, 'joined', (e) => (e.participant as { name: string }).name === 'Rex React');
    await waitForCount(host.page, '[data-testid=tile]', 3);

    // Hands and reactions, driven by the embedding page and seen by everyone.
    await driven.evaluate(() => (globalThis as unknown as Scope).__meeting!.raiseHand!());
    await waitForEvent(driven, 'hand-raised', (e) => e.self === true && e.order === 1);
    await waitForEvent(auto, 'hand-raised', (e) => e.self === false && (e.participant as { name: string }).name === 'Rex React');
    await host.page.getByTestId('open-people').click();
    await eventually(async () => expect((await peopleOrder(host.page))[0]).toEqual(['Rex React', '1']));
    await driven.evaluate(() => (globalThis as unknown as Scope).__meeting!.sendReaction!('🎉'));
    await waitForEvent(driven, 'reaction', (e) => e.self === true && e.emoji === '🎉');
    await waitForEvent(auto, 'reaction', (e) => e.emoji === '🎉' && (e.participant as { name: string }).name === 'Rex React');
    const rexId = ((await eventsOf(driven)).find((e) => e.type === 'reaction')!.participant as { id: string }).id;
    await host.page
      .locator(`.tile[data-peer-id="${rexId}"] [data-testid=tile-reaction]`, { hasText: '🎉' })
      .first()
      .waitFor({ timeout: 10_000 });
    await host.page.getByTestId('lower-all-hands').click();
    await waitForEvent(driven, 'hand-lowered', (e) => e.self === true && e.by === 'Hana Host');
    await auto.evaluate(() => (globalThis as unknown as Scope).__meeting!.lowerHand!());
    expect((await eventsOf(auto)).filter((e) => e.type === 'hand-lowered' && e.self === true)).toEqual([]);
    await saveScreenshot(driven, 'room-moderation-embed-driven');
  });
});
