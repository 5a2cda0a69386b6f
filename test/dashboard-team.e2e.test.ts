import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { firstStartSecrets, launchChromium, screenshot } from './support/dashboard-browser';
import { startService, svcCli, tempDataDir, type ServiceProcess } from './support/service-process';

jest.setTimeout(90_000);

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const LOOKS = [
  { name: 'desktop-light', viewport: DESKTOP, colorScheme: 'light' as const },
  { name: 'desktop-dark', viewport: DESKTOP, colorScheme: 'dark' as const },
  { name: 'phone-light', viewport: PHONE, colorScheme: 'light' as const },
  { name: 'phone-dark', viewport: PHONE, colorScheme: 'dark' as const },
];

describe('dashboard: teammates, in Chromium against the real service', () => {
  let dataDir: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let owner: BrowserContext;
  let ownerPage: Page;
  let inviteLink: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    [svc, browser] = await Promise.all([startService(dataDir), launchChromium()]);
    const { linkToken } = firstStartSecrets(svc.stdout());
    owner = await browser.newContext({ viewport: DESKTOP });
    ownerPage = await owner.newPage();
    await ownerPage.goto(`${svc.url}/sign-in#token=${linkToken}`);
    await ownerPage.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the owner sees their email and role in the header, and invites a member from the Team page: the link is shown once with Copy', async () => {
    await ownerPage.locator('header .who').getByText('owner@localhost').waitFor();
    await ownerPage.locator('header .who').getByText('owner', { exact: true }).waitFor();
    await ownerPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Team' }).click();
    await ownerPage.getByRole('heading', { name: 'Team', exact: true }).waitFor();
    await ownerPage.getByRole('button', { name: 'Invite', exact: true }).click();
    const form = ownerPage.getByRole('form', { name: 'Invite a teammate' });
    await form.getByLabel('Email').fill('mia@example.com');
    await form.getByLabel('Role').selectOption('member');
    await form.getByRole('button', { name: 'Create invitation link' }).click();
    const field = ownerPage.getByLabel('Invitation link');
    await field.waitFor();
    inviteLink = await field.inputValue();
    // The service's base URL (SVC_BASE_URL defaults to localhost), where the invitee opens it.
    expect(inviteLink).toMatch(new RegExp(`^http://localhost:${new URL(svc.url).port}/invite#token=svc_inv_`));
    await ownerPage.getByRole('button', { name: 'Copy' }).waitFor();
    await ownerPage.locator('[data-invite-email="mia@example.com"]').first().waitFor();
    await screenshot(ownerPage, 'dashboard-team-invite-link-desktop-light');
    await ownerPage.getByRole('button', { name: 'I have copied it' }).click();
    await field.waitFor({ state: 'detached' });
    await ownerPage.reload();
    await ownerPage.locator('[data-invite-email="mia@example.com"]').first().waitFor();
    expect(await ownerPage.content()).not.toContain(inviteLink.split('#token=')[1]);
  });

  it('the CLI invites too, printing a link at the service’s base URL; the Team page lists it and can revoke it', async () => {
    const res = svcCli(dataDir, 'users', 'invite', 'ops@example.com', '--role', 'admin');
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toMatch(new RegExp(`^http://localhost:${new URL(svc.url).port}/invite#token=svc_inv_\\S+$`));
    await ownerPage.reload();
    const row = ownerPage.locator('[data-invite-email="ops@example.com"]');
    await row.first().waitFor();
    await row.getByRole('button', { name: 'Revoke' }).first().click();
    await ownerPage.getByRole('dialog').getByRole('button', { name: 'Revoke invitation' }).click();
    await row.first().waitFor({ state: 'detached' });
    const other = await browser.newContext({ viewport: DESKTOP });
    const p = await other.newPage();
    await p.goto(res.stdout.trim());
    await p.getByRole('heading', { name: 'Invitation not valid' }).waitFor();
    await p.getByRole('alert').filter({ hasText: 'revoked' }).waitFor();
    await other.close();
  });

  it('the accept page says who is invited; joining sets a name and password and lands signed in as a member', async () => {
    for (const look of LOOKS) {
      const ctx = await browser.newContext({ viewport: look.viewport, colorScheme: look.colorScheme });
      const p = await ctx.newPage();
      await p.goto(inviteLink);
      await p.getByRole('heading', { name: 'Join My organization' }).waitFor();
      await p.getByText('mia@example.com').first().waitFor();
      expect(new URL(p.url()).hash).toBe('');
      await screenshot(p, `dashboard-accept-invite-${look.name}`);
      await ctx.close();
    }

    const mia = await browser.newContext({ viewport: DESKTOP });
    const p = await mia.newPage();
    const base = new URL(inviteLink).origin;
    await p.goto(inviteLink);
    await p.getByLabel('Your name').fill('Mia Member');
    await p.getByLabel('Choose a password').fill('short');
    await p.getByRole('button', { name: 'Join and sign in' }).click();
    // The browser's own check (minlength) keeps a short password from being sent.
    expect(
      await p.getByLabel('Choose a password').evaluate((el) => (el as unknown as { validity: { tooShort: boolean } }).validity.tooShort),
    ).toBe(true);
    await p.getByLabel('Choose a password').fill('mia has a long password');
    await p.getByRole('button', { name: 'Join and sign in' }).click();
    await p.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
    const who = p.locator('header .who');
    await who.getByText('mia@example.com').waitFor();
    await who.getByText('member', { exact: true }).waitFor();

    // A member sees meetings, not the pages that manage the service; the API refuses them too.
    const nav = p.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Meetings']);
    await p.goto(`${base}/settings/developers`);
    await p.getByRole('alert').filter({ hasText: 'Your role (member) does not include this page' }).waitFor();
    expect(await p.getByRole('heading', { name: 'API keys' }).count()).toBe(0);
    const keys = await p.evaluate(async () => {
      const res = await fetch('/dashboard/api/keys');
      return { status: res.status, type: res.headers.get('content-type') };
    });
    expect(keys.status).toBe(403);
    expect(keys.type).toMatch(/application\/problem\+json/);
    await screenshot(p, 'dashboard-member-refused-desktop-light');

    // The link was used: opening it again says so.
    const again = await browser.newContext();
    const q = await again.newPage();
    await q.goto(inviteLink);
    await q.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
    await again.close();

    // Signed out, the sign-in page names the account: the organization, the host and the email this browser used.
    await p.goto(`${base}/meetings`);
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    const account = p.locator('.account');
    await account
      .filter({ hasText: 'My organization' })
      .filter({ hasText: new URL(base).host })
      .filter({ hasText: 'mia@example.com' })
      .waitFor();
    expect(await p.getByLabel('Email').inputValue()).toBe('mia@example.com');
    await screenshot(p, 'dashboard-sign-in-account-desktop-light');
    await p.getByLabel('Password').fill('mia has a long password');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
    await mia.close();
  });

  it('the owner sees Mia on the Team page, changes her role and removes her, which signs her out at once', async () => {
    const mia = await browser.newContext({ viewport: DESKTOP });
    const m = await mia.newPage();
    await m.goto(`${svc.url}/sign-in`);
    await m.getByLabel('Email').fill('mia@example.com');
    await m.getByLabel('Password').fill('mia has a long password');
    await m.getByRole('button', { name: 'Sign in' }).click();
    await m.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();

    await ownerPage.goto(`${svc.url}/settings/team`);
    const row = ownerPage.locator('[data-user-email="mia@example.com"]');
    await row.waitFor();
    // The last owner can be neither demoted nor removed: the page offers neither.
    const ownerRow = ownerPage.locator('[data-user-email="owner@localhost"]');
    await ownerRow.getByText('The last owner').waitFor();
    expect(await ownerRow.getByRole('combobox').count()).toBe(0);

    const storage = await owner.storageState();
    for (const look of LOOKS) {
      const ctx = await browser.newContext({ viewport: look.viewport, colorScheme: look.colorScheme, storageState: storage });
      const p = await ctx.newPage();
      await p.goto(`${svc.url}/settings/team`);
      await p.locator('[data-user-email="mia@example.com"]').waitFor();
      await screenshot(p, `dashboard-team-${look.name}`);
      await ctx.close();
    }
    for (const look of LOOKS.filter((l) => l.name !== 'desktop-light')) {
      const ctx = await browser.newContext({ viewport: look.viewport, colorScheme: look.colorScheme });
      const p = await ctx.newPage();
      await p.goto(`${svc.url}/sign-in?email=mia%40example.com`);
      await p.locator('.account').filter({ hasText: 'mia@example.com' }).waitFor();
      await screenshot(p, `dashboard-sign-in-account-${look.name}`);
      await ctx.close();
    }

    await row.getByLabel('Role of mia@example.com').selectOption('admin');
    await m.reload();
    await m.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Developers' }).waitFor();

    await row.getByRole('button', { name: 'Remove' }).click();
    await ownerPage.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    await m.reload();
    await m.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    await mia.close();
  });
});
