import type { Page } from 'playwright-core';
import { createMeeting, roomUrl, saveScreenshot, waitForCount, waitForPreview, waitForScreen, waitForText } from './support/browser';
import { roomSuite } from './support/room-suite';

jest.setTimeout(90_000);

/** What the page's own scope offers to functions run in it (the test project has no DOM types). */
interface PageScope {
  document: { documentElement: { lang: string; dataset: Record<string, string | undefined> }; body: object };
  getComputedStyle(el: object): { backgroundColor: string };
  __notReloaded?: boolean;
}

/** The page's `<html lang>`, `<html data-theme>` and the body's computed background colour. */
function looks(page: Page): Promise<{ lang: string; theme: string | undefined; background: string }> {
  return page.evaluate(() => {
    const g = globalThis as unknown as PageScope;
    const root = g.document.documentElement;
    return { lang: root.lang, theme: root.dataset.theme, background: g.getComputedStyle(g.document.body).backgroundColor };
  });
}

/** The accessible names of the room's toolbar buttons, in order, as a screen reader hears them. */
async function toolbarLabels(page: Page): Promise<string[]> {
  return page
    .locator('[role=toolbar] button:visible')
    .evaluateAll((buttons) =>
      buttons.map((b) => (b as unknown as { ariaLabel: string | null; textContent: string }).ariaLabel ?? b.textContent.trim()),
    );
}

const LIGHT_BACKGROUND = 'rgb(243, 244, 247)';
const DARK_BACKGROUND = 'rgb(14, 16, 20)';

describe('the room page in German, French and English, light and dark', () => {
  const room = roomSuite();
  const { open } = room;

  /** Opens `url` in a context whose browser prefers `locale` (navigator.languages, Accept-Language). */
  const openAs = async (url: string, locale: string) => {
    const context = await room.browser.newContext({ locale, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const logs: string[] = [];
    page.on('pageerror', (err) => logs.push(`pageerror: ${err.message}`));
    room.track({ page, context, logs, close: () => context.close() });
    await page.goto(url);
    await page.locator('[data-testid=prejoin], [data-testid=unavailable]').first().waitFor({ timeout: 15_000 });
    return page;
  };

  it('?lang=de and ?lang=fr show the pre-join screen and the room in German and French', async () => {
    const meeting = await createMeeting(room.svc.url, room.key, { title: 'Quartalsplanung' });

    const anna = await open(roomUrl(room.svc.url, meeting.code, { lang: 'de', theme: 'light', name: 'Anna Albrecht' }));
    expect(await looks(anna.page)).toEqual({ lang: 'de', theme: 'light', background: LIGHT_BACKGROUND });
    expect(await anna.page.getByText('Bereit zum Beitreten?').count()).toBe(1);
    expect(await anna.page.getByLabel('Ihr Name').inputValue()).toBe('Anna Albrecht');
    await anna.page.getByRole('button', { name: 'Kamera ausschalten' }).waitFor();
    await anna.page.getByRole('button', { name: 'Beitreten', exact: true }).click();
    expect(await waitForScreen(anna.page)).toBe('room');
    expect(await toolbarLabels(anna.page)).toEqual([
      'Mikrofon stummschalten',
      'Kamera ausschalten',
      'Bildschirm teilen',
      'Einladen: Link für Gäste kopieren',
      'Hand heben',
      'Reagieren',
      'Personen (1)',
      'Chat',
      'Einstellungen',
      'Umfragen',
      'Verlassen',
    ]);
    expect(await anna.page.getByRole('toolbar', { name: 'Meeting-Steuerung' }).count()).toBe(1);
    expect(await anna.page.locator('.count-pill .sr-only').textContent()).toBe(' Person');
    expect(await anna.page.getByTestId('tile').textContent()).toContain('Anna Albrecht (Sie)');

    const basile = await open(roomUrl(room.svc.url, meeting.code, { lang: 'fr', theme: 'dark', name: 'Basile Blanc' }));
    expect(await looks(basile.page)).toEqual({ lang: 'fr', theme: 'dark', background: DARK_BACKGROUND });
    expect(await basile.page.getByText('Prêt à participer\u00a0?').count()).toBe(1);
    expect(await basile.page.getByLabel('Votre nom').inputValue()).toBe('Basile Blanc');
    expect(await basile.page.getByLabel('Caméra', { exact: true }).count()).toBe(1);
    await waitForPreview(basile.page);
    await saveScreenshot(basile.page, 'room-i18n-fr-prejoin-dark');
    await basile.page.getByRole('button', { name: 'Participer', exact: true }).click();
    expect(await waitForScreen(basile.page)).toBe('room');
    expect(await basile.page.getByRole('button', { name: 'Quitter' }).count()).toBe(1);
    await basile.page.getByTestId('open-people').click();
    await waitForText(basile.page, '#people-heading', 'Personnes (2)');
    expect(await basile.page.locator('.count-pill .sr-only').textContent()).toBe(' participants');

    // Anna's page speaks of Basile in German: the people button, the count, the chat. (Not the join toast: it is
    // gone after 4 s, which Basile's steps above can take on a loaded machine.)
    await anna.page.getByRole('button', { name: 'Personen (2)' }).waitFor();
    await waitForCount(anna.page, '[data-testid=tile]', 2);
    expect(await anna.page.locator('.count-pill .sr-only').textContent()).toBe(' Personen');
    await basile.page.getByTestId('open-chat').click();
    expect(await basile.page.getByPlaceholder('Envoyer un message à tous').count()).toBe(1);
    await basile.page.getByTestId('chat-input').fill('Bonjour Anna !');
    await basile.page.getByTestId('chat-input').press('Enter');
    await anna.page.getByRole('button', { name: 'Chat (1 ungelesen)' }).waitFor();
    await anna.page.getByTestId('open-chat').click();
    await anna.page.getByTestId('chat-message').waitFor();
    expect(await anna.page.getByRole('heading', { name: 'Chat', exact: true }).count()).toBe(1);
    await anna.page.getByTestId('chat-input').fill('Hallo Basile, willkommen!');
    await anna.page.getByTestId('chat-input').press('Enter');
    await waitForCount(anna.page, '[data-testid=chat-message]', 2);
    expect(await anna.page.getByTestId('chat-message').last().textContent()).toMatch(/^Sie.*Hallo Basile/);
    // German writes the time with a 24-hour clock, whatever the (English) browser would.
    expect(await anna.page.locator('[data-testid=chat-message] time').last().textContent()).toMatch(/^\d{2}:\d{2}$/);
    await saveScreenshot(anna.page, 'room-i18n-de-room-light');

    // The longer French labels still fit a tablet-sized toolbar.
    await basile.page.setViewportSize({ width: 768, height: 700 });
    await saveScreenshot(basile.page, 'room-i18n-fr-room-tablet-dark');
    const toolbar = basile.page.locator('.toolbar');
    expect(await toolbar.evaluate((el) => (el as unknown as { scrollWidth: number }).scrollWidth)).toBeLessThanOrEqual(768);

    await anna.page.getByTestId('leave').click();
    expect(await anna.page.getByTestId('left-reason').textContent({ timeout: 10_000 })).toBe('Sie haben das Meeting verlassen');
    expect(await anna.page.getByRole('button', { name: 'Wieder beitreten' }).count()).toBe(1);
  });

  it('a language the room does not speak shows English; without ?lang= the browser’s languages decide', async () => {
    const meeting = await createMeeting(room.svc.url, room.key, { title: 'Language fallback' });
    const unknown = await openAs(roomUrl(room.svc.url, meeting.code, { lang: 'xx' }), 'de-DE');
    expect((await looks(unknown)).lang).toBe('en');
    expect(await unknown.getByText('Ready to join?').count()).toBe(1);
    expect(await unknown.getByRole('button', { name: 'Join', exact: true }).count()).toBe(1);

    const austrian = await openAs(roomUrl(room.svc.url, meeting.code), 'de-AT');
    expect((await looks(austrian)).lang).toBe('de');
    expect(await austrian.getByRole('button', { name: 'Beitreten', exact: true }).count()).toBe(1);

    const canadian = await openAs(roomUrl(room.svc.url, meeting.code), 'fr-CA');
    expect(await canadian.getByRole('button', { name: 'Participer', exact: true }).count()).toBe(1);

    const spanish = await openAs(roomUrl(room.svc.url, meeting.code), 'es-ES');
    expect((await looks(spanish)).lang).toBe('en');

    // The screens without a Join button speak the language too.
    const gone = await openAs(roomUrl(room.svc.url, 'no-such-code', { lang: 'fr' }), 'en-US');
    expect(await gone.getByTestId('unavailable').locator('h1').textContent()).toBe('Ce lien de réunion n’existe pas');
  });

  it('?theme=light and ?theme=dark differ; theme=system follows prefers-color-scheme live, without a reload', async () => {
    const meeting = await createMeeting(room.svc.url, room.key, { title: 'Themes' });
    const light = await open(roomUrl(room.svc.url, meeting.code, { theme: 'light' }));
    const dark = await open(roomUrl(room.svc.url, meeting.code, { theme: 'dark' }));
    expect(await looks(light.page)).toEqual({ lang: 'en', theme: 'light', background: LIGHT_BACKGROUND });
    expect(await looks(dark.page)).toEqual({ lang: 'en', theme: 'dark', background: DARK_BACKGROUND });
    // A forced theme ignores the viewer's preference.
    await light.page.emulateMedia({ colorScheme: 'dark' });
    expect((await looks(light.page)).background).toBe(LIGHT_BACKGROUND);

    for (const query of [{ theme: 'system' }, { theme: 'sepia' }, {}] as Record<string, string>[]) {
      const system = await open(roomUrl(room.svc.url, meeting.code, query));
      expect((await looks(system.page)).theme).toBe('system');
      await system.page.evaluate(() => ((globalThis as unknown as PageScope).__notReloaded = true));
      await system.page.emulateMedia({ colorScheme: 'dark' });
      expect((await looks(system.page)).background).toBe(DARK_BACKGROUND);
      await system.page.emulateMedia({ colorScheme: 'light' });
      expect((await looks(system.page)).background).toBe(LIGHT_BACKGROUND);
      expect(await system.page.evaluate(() => (globalThis as unknown as PageScope).__notReloaded)).toBe(true);
    }
  });
});
