import { startFakeSlack, startFakeTeams, type FakeSlack, type FakeTeams } from '@svc/service/testing';
import type { Page } from 'playwright-core';
import { freePort, screenshot, startSignedIn, type SignedInDashboard } from './support/dashboard-browser';
import { call, waitFor, type ServiceProcess } from './support/service-process';

jest.setTimeout(60_000);

const TOKEN = 'xoxb-dashboard-test-token';
const SLACK_APP = { clientId: '111.222', clientSecret: 'dashboard-slack-app-secret' };

describe('dashboard: Settings > Integrations against a local fake Slack', () => {
  let dash: SignedInDashboard;
  let svc: ServiceProcess;
  let page: Page;
  let slack: FakeSlack;
  let teams: FakeTeams;
  let key: string;

  beforeAll(async () => {
    // The base URL is the page's own (the harness opens 127.0.0.1), so the session cookie comes along when Slack sends the browser back.
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const app = { ...SLACK_APP, redirectUri: `${baseUrl}/dashboard/api/integrations/slack/callback`, botToken: TOKEN };
    [slack, teams] = await Promise.all([
      startFakeSlack({ token: TOKEN, channels: ['C0123ABC', 'C0INSTALL'], app: { ...app, channel: { id: 'C0INSTALL', name: 'standup' } } }),
      startFakeTeams(),
    ]);
    // Insecure URLs allowed: the fake Teams listens on plain http on loopback.
    dash = await startSignedIn({
      PORT: String(port),
      SVC_BASE_URL: baseUrl,
      SVC_SLACK_API_URL: slack.apiUrl,
      SVC_SLACK_CLIENT_ID: SLACK_APP.clientId,
      SVC_SLACK_CLIENT_SECRET: SLACK_APP.clientSecret,
      SVC_SLACK_AUTHORIZE_URL: slack.authorizeUrl,
      SVC_ALLOW_INSECURE_WEBHOOKS: 'true',
    });
    ({ svc, page, ownerKey: key } = dash);
  });
  afterAll(async () => {
    await dash?.close();
    await slack?.close();
    await teams?.close();
  });

  it('adds Slack, sends a test message, and shows a delivery of a real event', async () => {
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('button', { name: 'Add Slack (bot token)' }).click();
    const form = page.getByRole('form', { name: 'New Slack integration' });
    await form.getByLabel('Bot token').fill(TOKEN);
    await form.getByLabel('Channel ID').fill('C0123ABC');
    await form.getByLabel('registration.created').check();
    await form.getByRole('button', { name: 'Add', exact: true }).click();
    const item = page.getByRole('listitem').filter({ hasText: 'C0123ABC' });
    await item.getByText('OK', { exact: true }).waitFor();
    expect(await page.content()).not.toContain(TOKEN);

    await item.getByRole('button', { name: 'Send test message' }).click();
    await item.getByRole('status').filter({ hasText: 'Test message sent' }).waitFor();
    expect(slack.posts).toHaveLength(1);
    expect(slack.posts[0]).toMatchObject({ channel: 'C0123ABC', token: TOKEN });
    expect(slack.posts[0]!.text).toContain('Test message from svc');
    expect(slack.problems).toEqual([]);

    expect((await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Demo', kind: 'webinar', slug: 'demo' })).status).toBe(
      201,
    );
    const reg = { email: 'lin@example.com', name: 'Lin' };
    expect((await call(svc.url, 'POST', '/api/v1/public/webinars/demo/registrations', key, reg)).status).toBe(201);
    await waitFor(() => slack.posts.length === 2, 15_000);
    await item.getByRole('button', { name: 'Deliveries' }).click();
    await waitFor(async () => {
      await item.getByRole('button', { name: 'Refresh' }).click();
      return (await item.locator('tr.delivery').filter({ hasText: 'succeeded' }).count()) === 1;
    }, 15_000);
    await item.getByRole('button', { name: 'Attempts' }).click();
    await item.locator('li.attempt').getByText('200', { exact: true }).waitFor();
    await screenshot(page, 'dashboard-integrations');
  });

  it('reports a failing test message with Slack’s error', async () => {
    await page.getByRole('button', { name: 'Add Slack (bot token)' }).click();
    const form = page.getByRole('form', { name: 'New Slack integration' });
    await form.getByLabel('Bot token').fill('xoxb-revoked-token-000');
    await form.getByLabel('Channel ID').fill('C9999');
    await form.getByRole('button', { name: 'Add', exact: true }).click();
    const item = page.getByRole('listitem').filter({ hasText: 'C9999' });
    await item.getByRole('button', { name: 'Send test message' }).click();
    await item.getByRole('status').filter({ hasText: 'Test message failed: invalid_auth' }).waitFor();
    expect(slack.posts).toHaveLength(2);
  });

  it('adds Teams with a workflow URL and sends it a test card', async () => {
    await page.getByRole('button', { name: 'Add Teams' }).click();
    const form = page.getByRole('form', { name: 'New Teams integration' });
    await form.getByLabel('Workflow URL').fill(teams.url);
    await form.getByRole('button', { name: 'Add', exact: true }).click();
    const item = page.getByRole('listitem').filter({ hasText: 'Microsoft Teams' });
    await item.getByRole('button', { name: 'Send test message' }).click();
    await item.getByRole('status').filter({ hasText: 'Test message sent' }).waitFor();
    expect(await page.content()).not.toContain('sig=secret-sig');
    expect(teams.posts).toHaveLength(1);
    expect(teams.problems).toEqual([]);
    expect(JSON.stringify(teams.posts[0]!.card)).toContain('Test message from svc');
  });

  it('installs the operator’s Slack app with "Add to Slack": Slack’s consent, back to the page, posting to the channel picked there', async () => {
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('button', { name: 'Add to Slack' }).click();
    const form = page.getByRole('form', { name: 'Add to Slack' });
    await form.getByLabel('summary.ready').check();
    await form.getByRole('button', { name: 'Continue to Slack' }).click();
    await page.getByRole('status').filter({ hasText: 'Slack app installed.' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    expect(slack.exchanges).toEqual([expect.objectContaining({ client_id: SLACK_APP.clientId, ok: true })]);
    const item = page.getByRole('listitem').filter({ hasText: 'C0INSTALL' });
    await item.getByText('OK', { exact: true }).waitFor();
    await item.getByText('meeting.started, recording.ready, summary.ready').waitFor();
    expect(await page.content()).not.toContain(TOKEN);
    await screenshot(page, 'dashboard-integrations-add-to-slack');

    await item.getByRole('button', { name: 'Send test message' }).click();
    await item.getByRole('status').filter({ hasText: 'Test message sent' }).waitFor();
    expect(slack.posts.at(-1)).toMatchObject({ channel: 'C0INSTALL', token: TOKEN });
    expect(slack.problems).toEqual([]);
  });

  it('lays out Integrations at phone width in the dark theme, every integration and its actions within the screen', async () => {
    const phone = await dash.browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    try {
      await phone.addCookies(await page.context().cookies());
      const p = await phone.newPage();
      await p.goto(`${svc.url}/settings/integrations`);
      const items = p.getByRole('listitem').filter({ has: p.getByRole('button', { name: 'Send test message' }) });
      await items.first().waitFor();
      const stored = (await call(svc.url, 'GET', '/api/v1/public/integrations?limit=100', key)).body as { data: unknown[] };
      expect(await items.count()).toBe(stored.data.length);
      for (const button of await p.getByRole('button').all()) {
        const box = (await button.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      const overflow = await p.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(p, 'dashboard-integrations-phone-dark');
    } finally {
      await phone.close();
    }
  });
});
