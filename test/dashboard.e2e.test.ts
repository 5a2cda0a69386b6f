import { startReceiver, type TestReceiver } from '@svc/service/testing';
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { firstStartSecrets, launchChromium, screenshot, setPassword } from './support/dashboard-browser';
import { call, startService, tempDataDir, waitFor, type ServiceProcess } from './support/service-process';

jest.setTimeout(60_000);

describe('dashboard: signing in and Settings > Developers, in Chromium against the real service', () => {
  let dataDir: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let ownerKey: string;
  let linkToken: string;
  let receiver: TestReceiver;

  beforeAll(async () => {
    dataDir = tempDataDir();
    [svc, browser, receiver] = await Promise.all([
      startService(dataDir, { SVC_ALLOW_INSECURE_WEBHOOKS: 'true' }),
      launchChromium(),
      startReceiver(() => ({ status: 200, body: 'thanks from the receiver' })),
    ]);
    ({ key: ownerKey, linkToken } = firstStartSecrets(svc.stdout()));
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the owner key on a line of its own and a one-time sign-in link beside it', () => {
    expect(svc.stdout()).toMatch(/^svc_sk_[0-9a-z]{52}$/m);
    expect(svc.stdout()).toMatch(/^http:\/\/localhost:\d+\/sign-in#token=\S+$/m);
  });

  it('signs in with the one-time link; a second use of the link fails', async () => {
    await page.goto(`${svc.url}/sign-in#token=${linkToken}`);
    await page.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/meetings');
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    const other = await browser.newContext();
    const second = await other.newPage();
    await second.goto(`${svc.url}/sign-in#token=${linkToken}`);
    await second.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
    expect(new URL(second.url()).hash).toBe('');
    await screenshot(second, 'dashboard-sign-in-link-used');
    await other.close();
  });

  it('signs in with a password set by the CLI; a wrong password fails', async () => {
    expect(setPassword(dataDir, 'owner@localhost', 'a long enough password').code).toBe(0);
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(`${svc.url}/`);
    await p.getByLabel('Email').fill('owner@localhost');
    await p.getByLabel('Password').fill('not the password');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor();
    await screenshot(p, 'dashboard-sign-in-wrong-password');
    await p.getByLabel('Password').fill('a long enough password');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    await p.goto(`${svc.url}/settings/developers`);
    await p.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    await other.close();
  });

  it('creates an API key shown exactly once; it works on the API; after a reload only its prefix shows; revoked, the API refuses it', async () => {
    await page.goto(`${svc.url}/settings/developers`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name').fill('Reporting script');
    await form.getByLabel('meetings:write').check();
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('textbox', { name: 'API key', exact: true });
    await shown.waitFor();
    await page.getByText('it is shown only this once').waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^svc_sk_[0-9a-z]{52}$/);
    await screenshot(page, 'dashboard-developers-key-created');

    expect((await call(svc.url, 'GET', '/api/v1/public/meetings', key)).status).toBe(200);
    expect((await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Made with the new key' })).status).toBe(201);

    await page.reload();
    const row = page.getByRole('row').filter({ hasText: 'Reporting script' });
    await row.waitFor();
    expect(await page.content()).not.toContain(key.slice(19));
    await row.getByRole('cell', { name: `${key.slice(0, 19)}…`, exact: true }).waitFor();
    await row.getByText('Never').waitFor({ state: 'detached' });

    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke “Reporting script”?' });
    await dialog.waitFor();
    await screenshot(page, 'dashboard-developers-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('Revoked').waitFor();
    expect((await call(svc.url, 'GET', '/api/v1/public/meetings', key)).status).toBe(401);
  });

  it('adds a webhook endpoint (secret shown once), shows a delivery and its attempt, redelivers it, disables and rotates', async () => {
    await page.goto(`${svc.url}/settings/developers`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New webhook endpoint' });
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Description').fill('Local receiver');
    await form.getByLabel('registration.created').check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    expect(
      (await call(svc.url, 'POST', '/api/v1/public/meetings', ownerKey, { title: 'Launch', kind: 'webinar', slug: 'launch' })).status,
    ).toBe(201);
    const reg = { email: 'ada@example.com', name: 'Ada' };
    expect((await call(svc.url, 'POST', '/api/v1/public/webinars/launch/registrations', ownerKey, reg)).status).toBe(201);
    await waitFor(() => receiver.requests.length === 1, 15_000);

    const endpoint = page.getByRole('listitem').filter({ hasText: receiver.url });
    await endpoint.getByRole('button', { name: 'Deliveries' }).click();
    const delivery = endpoint.locator('tr.delivery').first();
    await delivery.getByText('succeeded').waitFor();
    await delivery.getByRole('button', { name: 'Attempts' }).click();
    const attempt = endpoint.locator('li.attempt').first();
    await attempt.getByText('200', { exact: true }).waitFor();
    await attempt.getByText(/^\d+ ms$/).waitFor();
    await attempt.getByText('thanks from the receiver').waitFor();
    await screenshot(page, 'dashboard-developers-webhook-deliveries');

    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await waitFor(() => receiver.requests.length === 2, 15_000);
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id']);
    await waitFor(async () => {
      await endpoint.getByRole('button', { name: 'Refresh' }).click();
      return (await endpoint.locator('tr.delivery').filter({ hasText: 'succeeded' }).count()) === 2;
    }, 15_000);

    await endpoint.getByRole('button', { name: 'Disable' }).click();
    await endpoint.getByText('Disabled: disabled through the API').waitFor();
    await endpoint.getByRole('button', { name: 'Enable' }).click();
    await endpoint.getByText('Enabled', { exact: true }).waitFor();
    await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate' }).click();
    const rotated = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await screenshot(page, 'dashboard-developers');
  });

  it('refuses a state-changing request without the CSRF token or from another origin', async () => {
    const fromPage = await page.evaluate(async () => {
      const res = await fetch('/dashboard/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'no csrf', scopes: [] }),
      });
      return res.status;
    });
    expect(fromPage).toBe(403);
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    const session = await fetch(`${svc.url}/dashboard/api/session`, { headers: { cookie: `svc_session=${cookie.value}` } });
    const csrf = ((await session.json()) as { csrf_token: string }).csrf_token;
    const post = (origin: string) =>
      fetch(`${svc.url}/dashboard/api/keys`, {
        method: 'POST',
        headers: { cookie: `svc_session=${cookie.value}`, 'x-csrf-token': csrf, origin, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'cross origin', scopes: [] }),
      });
    expect((await post('http://evil.example')).status).toBe(403);
    expect((await post(svc.url)).status).toBe(201);
  });

  it('lays out Developers at phone width and in the dark theme', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    await phone.addCookies(await context.cookies());
    const p = await phone.newPage();
    await p.goto(`${svc.url}/settings/developers`);
    await p.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    await screenshot(p, 'dashboard-developers-phone-dark');
    // Every key's cells are labelled lines inside the page, none cut off behind a scrolled table.
    const scopes = p.locator('tr[data-key-id] td.scopes');
    expect(await scopes.count()).toBeGreaterThan(0);
    for (const cell of await scopes.all()) {
      const box = (await cell.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(await cell.getAttribute('data-label')).toBe('Scopes');
    }
    const overflow = await p.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    // A delivery's row stacks the same way; its expanded attempts span the row, under no column's label.
    await p.getByRole('button', { name: 'Deliveries', exact: true }).click();
    const delivery = p.locator('tr.delivery').first();
    await delivery.getByRole('button', { name: 'Attempts' }).click();
    const status = delivery.locator('td[data-label="Status"]');
    const statusBox = (await status.boundingBox())!;
    expect(statusBox.x + statusBox.width).toBeLessThanOrEqual(390);
    expect(await p.locator('tr.attempts-row td').first().getAttribute('data-label')).toBeNull();
    await screenshot(p, 'dashboard-developers-phone-deliveries');
    await phone.close();
  });

  it('says the service cannot be reached (no sign-in form, no "Failed to fetch") when the session cannot be asked for, and Try again goes on', async () => {
    for (const variant of [
      { name: 'desktop-light', viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
      { name: 'phone-dark', viewport: { width: 390, height: 844 }, colorScheme: 'dark' },
    ] as const) {
      const ctx = await browser.newContext({ viewport: variant.viewport, colorScheme: variant.colorScheme });
      await ctx.addCookies(await context.cookies());
      const p = await ctx.newPage();
      // The page loads; the service then refuses the connection for the session (as when it has just stopped).
      await p.route('**/dashboard/api/session', (route) => route.abort('connectionrefused'));
      await p.goto(`${svc.url}/meetings`);
      const alert = p.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).toBe('Cannot reach the service. Check your connection and try again.');
      expect(await p.getByRole('heading', { name: 'Sign in to svc' }).count()).toBe(0);
      await screenshot(p, `dashboard-unreachable-${variant.name}`);
      await p.unroute('**/dashboard/api/session');
      await p.getByRole('button', { name: 'Try again' }).click();
      await p.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
      await ctx.close();
    }
    // A reverse proxy in front of a stopped service answers 502 with a page of its own: the same sentence, no sign-in form.
    const p = await context.newPage();
    await p.route('**/dashboard/api/session', (route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }),
    );
    await p.goto(`${svc.url}/meetings`);
    await p.getByRole('alert').waitFor();
    expect(await p.getByRole('alert').innerText()).toBe('Cannot reach the service. Check your connection and try again.');
    expect(await p.getByRole('heading', { name: 'Sign in to svc' }).count()).toBe(0);
    await p.close();
  });
});

describe('dashboard session expiry', () => {
  it('sends the browser back to sign-in once the session has expired', async () => {
    const dataDir = tempDataDir();
    const [svc, browser] = await Promise.all([startService(dataDir, { SVC_DASHBOARD_SESSION_TTL_SECONDS: '2' }), launchChromium()]);
    try {
      const { linkToken } = firstStartSecrets(svc.stdout());
      const page = await browser.newPage();
      await page.goto(`${svc.url}/sign-in#token=${linkToken}`);
      await page.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
      const cookie = (await page.context().cookies()).find((c) => c.name === 'svc_session')!;
      await waitFor(
        async () =>
          (await fetch(`${svc.url}/dashboard/api/session`, { headers: { cookie: `svc_session=${cookie.value}` } })).status === 401,
        10_000,
      );
      await page.getByRole('link', { name: 'Developers' }).click();
      await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    } finally {
      await browser.close();
      await svc.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
