import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, saveScreenshot } from './support/browser';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

/**
 * The public registration page in Chromium as a registrant sees it: German from the browser's language, the start in
 * the viewer's own zone (New York) beside the webinar's (UTC+09:00), errors beside the fields, then the personal join
 * link and the .ics download; desktop and phone, light and dark (test/artifacts/webinar-registration-*.png).
 */
describe('the webinar registration page in a browser', () => {
  let svc: ServiceProcess;
  let key: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    [svc, browser] = await Promise.all([startService(dataDir), launchBrowser()]);
    const res = await call(svc.url, 'POST', '/api/v1/public/meetings', key, {
      title: 'Produktstart Q4: was kommt',
      kind: 'webinar',
      slug: 'produktstart',
      scheduled_at: '2031-03-01T10:30:00+09:00',
      duration_minutes: 45,
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await svc?.stop();
  });

  const variants = [
    { device: 'desktop', viewport: { width: 1280, height: 860 }, scheme: 'light' },
    { device: 'desktop', viewport: { width: 1280, height: 860 }, scheme: 'dark' },
    { device: 'phone', viewport: { width: 390, height: 844 }, scheme: 'light' },
    { device: 'phone', viewport: { width: 390, height: 844 }, scheme: 'dark' },
  ] as const;

  it.each(variants)('registers in German on a $device in $scheme mode: local time, field errors, join link and .ics', async (variant) => {
    const context = await browser.newContext({
      viewport: variant.viewport,
      colorScheme: variant.scheme,
      locale: 'de-DE',
      timezoneId: 'America/New_York',
      acceptDownloads: true,
    });
    contexts.push(context);
    const page: Page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // The form's 400 answer is logged as a failed load; anything else (a CSP refusal of the script or style) counts.
      if (message.type() === 'error' && !message.text().includes('status of 400')) errors.push(message.text());
    });
    const shot = (screen: string) =>
      saveScreenshot(page, `webinar-registration-${screen}-${variant.device}-${variant.scheme}`, { fullPage: true });

    await page.goto(`${svc.url}/w/produktstart`);
    await page.getByRole('heading', { level: 1, name: 'Produktstart Q4: was kommt' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    // 01:30 UTC is 20:30 the evening before in New York; the page's script writes it in the viewer's zone.
    const local = page.locator('.local');
    await local.waitFor();
    expect(await local.innerText()).toMatch(/^Freitag, 28\. Februar 2031 um 20:30 \S+ \(Ihre Zeit\)$/);
    expect(await page.getByTestId('webinar-zone').innerText()).toBe(
      'Samstag, 1. März 2031 um 10:30 in der Zeitzone des Webinars (UTC+09:00)',
    );
    // The honeypot is off screen (bots fill it, people never see it).
    const honeypot = (await page.locator('#website').boundingBox())!;
    expect(honeypot.x + honeypot.width).toBeLessThanOrEqual(0);
    await shot('form');

    await page.getByLabel('Ihr Name').fill('Greta Gast');
    await page.getByLabel('E-Mail').fill('greta-at-example');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.locator('#email-error').waitFor();
    expect(await page.locator('#email-error').innerText()).toBe('Geben Sie eine gültige E-Mail-Adresse ein.');
    expect(await page.getByLabel('Ihr Name').inputValue()).toBe('Greta Gast');
    expect(await page.locator('#name-error').count()).toBe(0);
    await shot('error');

    const email = `greta-${variant.device}-${variant.scheme}@example.com`;
    await page.getByLabel('E-Mail').fill(email);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByTestId('registered').waitFor();
    expect(await page.getByTestId('registered').innerText()).toBe('Sie sind angemeldet, Greta Gast');
    const joinUrl = await page.locator('#join-link').inputValue();
    expect(joinUrl).toMatch(/\/m\/[a-z]{3}-[a-z]{4}-[a-z]{3}\?invite=/);
    expect(await page.getByTestId('join-link').getAttribute('href')).toBe(joinUrl);
    await shot('registered');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('calendar').click()]);
    expect(download.suggestedFilename()).toBe('produktstart.ics');
    const ics = fs.readFileSync((await download.path())!, 'utf8');
    const lines = ics.replace(/\r\n /g, '').split('\r\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'DTSTART:20310301T013000Z',
        'DTEND:20310301T021500Z',
        'SUMMARY:Produktstart Q4: was kommt',
        `URL:${joinUrl}`,
      ]),
    );

    // The API sees the registration the page made.
    const found = await call(svc.url, 'GET', `/api/v1/public/webinars/produktstart/registrations?email=${encodeURIComponent(email)}`, key);
    expect(found.body.data).toEqual([expect.objectContaining({ name: 'Greta Gast', join_url: joinUrl })]);
    expect(errors).toEqual([]);
  });

  it('shows an unknown address as a friendly page in French', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    contexts.push(context);
    const page = await context.newPage();
    const response = await page.goto(`${svc.url}/w/nulle-part?lang=fr`);
    expect(response!.status()).toBe(404);
    await page.getByRole('heading', { name: 'Webinaire introuvable' }).waitFor();
    await saveScreenshot(page, 'webinar-registration-not-found-phone-dark');
  });
});
