import type { Page } from 'playwright-core';
import {
  createMeeting,
  eventually,
  hostLink,
  joinRoom,
  peerIdOf,
  roomUrl,
  saveScreenshot,
  waitForCount,
  waitForMediaFlowing,
  waitForText,
  clickTool,
} from './support/browser';
import { roomSuite } from './support/room-suite';

jest.setTimeout(120_000);

const PHONE = { width: 390, height: 844 };

/** The parts of the page's global scope these tests read (the test project has no DOM types). */
interface Scope {
  document: {
    querySelector(selector: string): Box | null;
    querySelectorAll(selector: string): ArrayLike<Box>;
    elementFromPoint(x: number, y: number): Box | null;
  };
  getComputedStyle(el: Box): { backgroundColor: string; color: string };
  navigator: { clipboard: { readText(): Promise<string>; writeText(text: string): Promise<void> } };
  localStorage: { getItem(key: string): string | null };
  __pwned?: unknown;
}
interface Box {
  getBoundingClientRect(): {
    x: number;
    y: number;
    width: number;
    height: number;
    top: number;
    bottom: number;
    left: number;
    right: number;
  };
  closest(selector: string): Box | null;
  getAttribute(name: string): string | null;
}

/** The bounding box of the first element matching `selector`, or null. */
function boxOf(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const el = (globalThis as unknown as Scope).document.querySelector(sel);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }, selector);
}

/** Relative luminance (0 black .. 1 white) of a CSS `rgb()` colour. */
function luminance(color: string): number {
  const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((c) => Number(c) / 255);
  const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
}

describe('the room page in the call: chat links, phones, layouts, invite, the waiting room', () => {
  const room = roomSuite();
  const { open } = room;

  /** A host (by host link) and a guest in one meeting, both receiving media. */
  const hostAndGuest = async (title: string, viewports: { host?: typeof PHONE; guest?: typeof PHONE } = {}, settings = {}) => {
    const meeting = await createMeeting(room.svc.url, room.key, { title, settings });
    const host = await open(await hostLink(room.svc.url, room.key, meeting.id, 'Hana Host'), viewports.host);
    expect(await joinRoom(host.page)).toBe('room');
    const guest = await open(roomUrl(room.svc.url, meeting.code, { name: 'Gus Guest' }), viewports.guest);
    expect(await joinRoom(guest.page)).toBe('room');
    for (const page of [host.page, guest.page]) {
      await waitForCount(page, '[data-testid=tile]', 2);
      await waitForText(page, '[data-testid=participant-count]', '2');
    }
    await Promise.all([waitForMediaFlowing(host.page), waitForMediaFlowing(guest.page)]);
    return { meeting, host, guest };
  };

  // One call for both (setting up the call is most of either): chat links first, then Invite.
  it('http(s) addresses in chat become safe links; javascript:, data: and markup stay plain text; Invite copies the guest link, never the host link, and says so', async () => {
    const { meeting, host, guest } = await hostAndGuest('Links in chat, invite');
    const hostile =
      'Agenda: https://example.com/agenda?week=48&x=1. Not these: javascript:alert(1) data:text/html,<b>x</b> ' +
      '<img src=x onerror="window.__pwned=1"> <a href="javascript:alert(2)">click</a>';
    await guest.page.getByTestId('open-chat').click();
    await guest.page.getByTestId('chat-input').fill(hostile);
    await guest.page.getByTestId('chat-input').press('Enter');
    await host.page.getByTestId('open-chat').click();
    await waitForCount(host.page, '[data-testid=chat-message]', 1);

    for (const page of [host.page, guest.page]) {
      const message = page.getByTestId('chat-message').locator('.chat-text');
      await eventually(async () => expect(await message.textContent()).toBe(hostile));
      const links = await message.locator('a').evaluateAll((as) =>
        as.map((a) => ({
          href: a.getAttribute('href'),
          target: a.getAttribute('target'),
          rel: a.getAttribute('rel'),
          text: a.textContent,
        })),
      );
      expect(links).toEqual([
        {
          href: 'https://example.com/agenda?week=48&x=1',
          target: '_blank',
          rel: 'noopener noreferrer',
          text: 'https://example.com/agenda?week=48&x=1',
        },
      ]);
      // The markup arrived as text: no element was made from it, and its handler never ran.
      expect(await message.locator('img, b, script').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as Scope).__pwned)).toBeUndefined();
    }

    await host.page.emulateMedia({ colorScheme: 'light' });
    await saveScreenshot(host.page, 'room-call-chat-link');
    await host.page.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(host.page, 'room-call-chat-link-dark');
    await host.page.emulateMedia({ colorScheme: 'light' });

    // Invite copies the guest link, never the host link, and says so.
    const guestLink = `${room.svc.url}/m/${meeting.code}`;
    for (const { page, context } of [host, guest]) {
      // Granting sets the origin's whole list: without camera and microphone in it, Chromium stops the running capture.
      await context.grantPermissions(['clipboard-read', 'clipboard-write', 'camera', 'microphone'], { origin: room.svc.url });
      await page.evaluate(() => (globalThis as unknown as Scope).navigator.clipboard.writeText('before'));
      await page.getByRole('button', { name: 'Invite: copy the link for guests' }).click();
      await page.getByTestId('link-copied').waitFor({ state: 'visible' });
      expect(await page.getByTestId('link-copied').textContent()).toBe('Link copied');
      const copied = await page.evaluate(() => (globalThis as unknown as Scope).navigator.clipboard.readText());
      expect(copied).toBe(guestLink);
      expect(copied).not.toContain('host=');
      expect(copied).not.toContain('?');
    }
    await saveScreenshot(host.page, 'room-invite-copied');

    // A browser that refuses the clipboard: the link shows to copy by hand.
    await guest.page.evaluate(() => {
      (globalThis as unknown as Scope).navigator.clipboard.writeText = () => Promise.reject(new Error('NotAllowedError'));
    });
    await guest.page.getByTestId('invite').click();
    await guest.page.getByTestId('invite-dialog').waitFor({ state: 'visible' });
    expect(await guest.page.getByTestId('invite-link').inputValue()).toBe(guestLink);
  });

  it('on a phone: the panels leave the REC badge in sight and follow the dark theme, your tile is small and last, Record is labelled', async () => {
    const { host, guest } = await hostAndGuest('Quarterly planning with the whole product and design team', { host: PHONE });
    const page = host.page;
    await guest.page.getByTestId('open-chat').click();
    await guest.page.getByTestId('chat-input').fill('Notes are at https://example.com/notes');
    await guest.page.getByTestId('chat-input').press('Enter');
    const hostPeer = await peerIdOf(page);

    // Your own camera is not the first full-width tile: the other person fills the screen, yours floats small.
    const tiles = await page.evaluate(() =>
      Array.from((globalThis as unknown as Scope).document.querySelectorAll('[data-testid=tile]')).map((el) => {
        const r = el.getBoundingClientRect();
        return { self: el.getAttribute('data-self') === 'true', width: r.width, top: r.top, left: r.left };
      }),
    );
    const [first] = [...tiles].sort((a, b) => a.top - b.top || a.left - b.left);
    expect(first!.self).toBe(false);
    const own = tiles.find((t) => t.self)!;
    const other = tiles.find((t) => !t.self)!;
    expect(own.width).toBeLessThan(PHONE.width / 3);
    expect(other.width).toBeGreaterThan(PHONE.width * 0.8);
    expect(await page.locator(`[data-testid=tile][data-peer-id="${hostPeer}"]`).isVisible()).toBe(true);

    // The toolbar does not cut off its first button when it runs out of room (it scrolls instead).
    expect((await boxOf(page, '[data-testid=toggle-microphone]'))!.x).toBeGreaterThanOrEqual(0);

    // Record has its word on a phone (in the toolbar's "More" menu, where the middle buttons fold), not only a red dot.
    const recordLabel = page.getByTestId('toggle-recording').locator('.tool-label');
    await page.getByTestId('more').click();
    const recordItem = page.getByTestId('more-toggle-recording');
    expect(await recordItem.textContent()).toBe('Record');
    expect((await recordItem.boundingBox())!.width).toBeGreaterThan(20);
    await recordItem.click();
    await page.locator('.rec-badge').waitFor({ state: 'visible', timeout: 15_000 });
    await eventually(async () => expect(await recordLabel.textContent()).toBe('Stop recording'));

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const panel of ['people', 'chat'] as const) {
        await clickTool(page, `open-${panel}`);
        await page.getByTestId('panel').waitFor({ state: 'visible' });
        if (panel === 'chat') await page.locator('.chat-text a').waitFor();
        const badge = (await boxOf(page, '.rec-badge'))!;
        const panelBox = (await boxOf(page, '[data-testid=panel]'))!;
        expect(badge.y + badge.height).toBeLessThanOrEqual(panelBox.y);
        // Nothing lies over the badge: the element at its centre is the badge itself.
        const onTop = await page.evaluate(
          ([x, y]) => Boolean((globalThis as unknown as Scope).document.elementFromPoint(x!, y!)?.closest('.rec-badge')),
          [badge.x + badge.width / 2, badge.y + badge.height / 2],
        );
        expect(onTop).toBe(true);
        const colors = await page.evaluate(() => {
          const g = globalThis as unknown as Scope;
          const style = g.getComputedStyle(g.document.querySelector('[data-testid=panel]')!);
          return { background: style.backgroundColor, text: style.color };
        });
        if (scheme === 'dark') {
          expect(luminance(colors.background)).toBeLessThan(0.05);
          expect(luminance(colors.text)).toBeGreaterThan(0.6);
        } else expect(luminance(colors.background)).toBeGreaterThan(0.8);
        await saveScreenshot(page, `room-phone-${panel}-rec${scheme === 'dark' ? '-dark' : ''}`);
        await clickTool(page, `open-${panel}`);
        await page.getByTestId('panel').waitFor({ state: 'hidden' });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await saveScreenshot(page, 'room-phone-call');
    await page.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(page, 'room-phone-call-dark');
    await clickTool(page, 'toggle-recording');
    await page.locator('.rec-badge').waitFor({ state: 'hidden', timeout: 20_000 });
  });

  it('the speaker layout shows the other person large and the rest in a strip, and the choice is remembered', async () => {
    const { meeting, host, guest } = await hostAndGuest('Speaker layout');
    const page = guest.page;
    const hostPeer = await peerIdOf(host.page);
    expect(await page.getByTestId('layout-grid').getAttribute('aria-pressed')).toBe('true');

    await page.getByTestId('layout-speaker').click();
    expect(await page.getByTestId('layout-speaker').getAttribute('aria-pressed')).toBe('true');
    const featured = page.getByTestId('speaker-area').locator('[data-testid=tile]');
    await eventually(async () => expect(await featured.count()).toBe(1));
    expect(await featured.getAttribute('data-peer-id')).toBe(hostPeer);
    const big = (await featured.boundingBox())!;
    const strip = (await page.locator('.grid-area [data-testid=tile][data-self]').boundingBox())!;
    expect(big.width).toBeGreaterThan(strip.width * 2.5);
    await featured.locator('video').waitFor({ state: 'visible' });
    expect(await page.evaluate(() => (globalThis as unknown as Scope).localStorage.getItem('svc.room.layout'))).toBe('speaker');
    await saveScreenshot(page, 'room-speaker-layout');
    await page.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(page, 'room-speaker-layout-dark');

    // The same browser, another call: it starts in the speaker layout.
    const again = await guest.context.newPage();
    await again.goto(roomUrl(room.svc.url, meeting.code, { name: 'Gus Again' }));
    expect(await joinRoom(again)).toBe('room');
    expect(await again.getByTestId('layout-speaker').getAttribute('aria-pressed')).toBe('true');
    await eventually(async () => expect(await again.getByTestId('speaker-area').locator('[data-testid=tile]').count()).toBe(1));
    await again.setViewportSize(PHONE);
    await again.emulateMedia({ colorScheme: 'light' });
    await eventually(async () => expect((await again.getByTestId('speaker-area').boundingBox())!.width).toBeGreaterThan(PHONE.width * 0.8));
    await saveScreenshot(again, 'room-phone-speaker-layout');
    await again.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(again, 'room-phone-speaker-layout-dark');

    // Back to the grid: every tile in the grid again.
    await page.getByTestId('layout-grid').click();
    await eventually(async () => expect(await page.getByTestId('speaker-area').locator('[data-testid=tile]').count()).toBe(0));
    expect(await page.locator('.grid-area [data-testid=tile]').count()).toBe(3);
    expect(await page.evaluate(() => (globalThis as unknown as Scope).localStorage.getItem('svc.room.layout'))).toBe('grid');
    await again.close();
  });

  it('the waiting room keeps your camera preview until a host admits you', async () => {
    const meeting = await createMeeting(room.svc.url, room.key, { title: 'Preview while waiting', settings: { waiting_room: true } });
    const host = await open(await hostLink(room.svc.url, room.key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    for (const [viewport, suffix] of [
      [undefined, ''],
      [PHONE, '-phone'],
    ] as const) {
      const guest = await open(roomUrl(room.svc.url, meeting.code, { name: `Wendy${suffix}` }), viewport);
      expect(await joinRoom(guest.page)).toBe('waiting');
      await guest.page.waitForFunction(
        () =>
          (globalThis as unknown as { document: { querySelector(s: string): { readyState: number } | null } }).document.querySelector(
            '[data-testid=self-preview] video',
          )?.readyState === 4,
        null,
        { timeout: 10_000 },
      );
      await guest.page.emulateMedia({ colorScheme: 'light' });
      await saveScreenshot(guest.page, `room-waiting-preview${suffix}`);
      await guest.page.emulateMedia({ colorScheme: 'dark' });
      await saveScreenshot(guest.page, `room-waiting-preview${suffix}-dark`);
      // Admitted, the same camera goes to the room.
      await host.page.getByTestId('admit').first().click();
      await guest.page.getByTestId('room').waitFor({ timeout: 15_000 });
      const guestPeer = await peerIdOf(guest.page);
      await host.page.locator(`[data-testid=tile][data-peer-id="${guestPeer}"] video`).waitFor({ state: 'visible', timeout: 15_000 });
      await guest.close();
    }
  });
});
