import { seedMediaResults } from '@svc/service/testing';
import type { Page } from 'playwright-core';
import { freePort, screenshot, startSignedIn, type SignedInDashboard } from './support/dashboard-browser';
import { call, unlimitedKey, waitFor, type ServiceProcess } from './support/service-process';

jest.setTimeout(60_000);

describe('dashboard: meetings, in Chromium against the real service', () => {
  let dash: SignedInDashboard;
  let dataDir: string;
  let svc: ServiceProcess;
  let page: Page;
  let key: string;

  beforeAll(async () => {
    // A fixed base URL, so the links the service makes (join, host) point at it.
    const port = await freePort();
    dash = await startSignedIn({ PORT: String(port), SVC_BASE_URL: `http://127.0.0.1:${port}` });
    ({ dataDir, svc, page } = dash);
    key = unlimitedKey(dataDir);
  });
  afterAll(() => dash?.close());

  it('creates an instant meeting, copies its join link, opens a host link and cancels it after confirmation', async () => {
    await page.getByRole('button', { name: 'New meeting' }).click();
    const form = page.getByRole('form', { name: 'New meeting' });
    await form.getByLabel('Title').fill('Standup');
    await screenshot(page, 'dashboard-meetings-create');
    await form.getByRole('button', { name: 'Create meeting' }).click();
    await page.getByRole('heading', { name: 'Standup' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const meeting = (await call(svc.url, 'GET', `/api/v1/public/meetings/${id}`, key)).body;
    expect(meeting.title).toBe('Standup');
    await page.getByText(meeting.join_url).waitFor();

    await page.getByRole('button', { name: 'Copy join link' }).click();
    await page.getByRole('button', { name: 'Join link copied' }).waitFor();

    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Join as host' }).click()]);
    await popup.waitForURL(/\/m\//);
    expect(popup.url()).toContain(`/m/${meeting.code}`);
    await popup.close();

    await page.getByRole('button', { name: 'Cancel meeting' }).click();
    await page.getByRole('dialog', { name: 'Cancel this meeting?' }).getByRole('button', { name: 'Cancel meeting' }).click();
    await page.locator('.page-head').getByText('cancelled').waitFor();
    expect((await call(svc.url, 'GET', `/api/v1/public/meetings/${id}`, key)).body.status).toBe('cancelled');
  });

  it('schedules a meeting in a chosen time zone, keeping its offset', async () => {
    await page.goto(`${svc.url}/meetings`);
    await page.getByRole('button', { name: 'New meeting' }).click();
    const form = page.getByRole('form', { name: 'New meeting' });
    await form.getByLabel('Scheduled meeting').check();
    await form.getByLabel('Title').fill('Board review');
    await form.getByLabel('Date').fill('2027-01-15');
    await form.getByLabel('Time', { exact: true }).fill('09:30');
    await form.getByLabel('Time zone').selectOption('America/New_York');
    await form.getByLabel('Duration (minutes)').fill('45');
    await form.getByRole('button', { name: 'Create meeting' }).click();
    await page.getByRole('heading', { name: 'Board review' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const meeting = (await call(svc.url, 'GET', `/api/v1/public/meetings/${id}`, key)).body;
    expect(meeting).toMatchObject({ scheduled_at: '2027-01-15T09:30:00-05:00', duration_minutes: 45, status: 'scheduled' });
  });

  it('creates a webinar with a slug and shows its registrations, recordings, transcript and summary', async () => {
    await page.goto(`${svc.url}/meetings`);
    await page.getByRole('button', { name: 'New meeting' }).click();
    const form = page.getByRole('form', { name: 'New meeting' });
    await form.getByLabel('Webinar').check();
    await form.getByLabel('Title').fill('Spring launch');
    await form.getByLabel('Time zone').selectOption('Europe/Paris');
    await form.getByLabel(/^Slug/).fill('spring-launch');
    await form.getByRole('button', { name: 'Create meeting' }).click();
    await page.getByRole('heading', { name: 'Spring launch' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const reg = await call(svc.url, 'POST', '/api/v1/public/webinars/spring-launch/registrations', key, {
      email: 'grace@example.com',
      name: 'Grace Hopper',
    });
    expect(reg.status).toBe(201);
    const media = seedMediaResults(dataDir, id);

    await page.reload();
    await page.getByRole('cell', { name: 'grace@example.com' }).waitFor();
    await page.getByText(media.tldr).waitFor();
    await waitFor(async () => (await page.locator('video').count()) === 2, 10_000);
    const file = await page.evaluate<number>(
      `fetch(document.querySelector('video').getAttribute('src')).then((r) => r.ok ? r.arrayBuffer().then((b) => b.byteLength) : -r.status)`,
    );
    expect(file).toBe('webm-bytes'.length);
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    expect(await page.locator('.transcript').innerText()).toContain(media.transcriptText.split(' ').slice(0, 3).join(' '));
    await screenshot(page, 'dashboard-meeting-page');
  });

  it('filters the list by status and pages through it', async () => {
    for (let i = 0; i < 21; i++) {
      expect((await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: `Bulk ${String(i).padStart(2, '0')}` })).status).toBe(
        201,
      );
    }
    await page.goto(`${svc.url}/meetings`);
    const rows = page.locator('tbody tr');
    await waitFor(async () => (await rows.count()) === 20, 10_000);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('link', { name: 'Standup' }).waitFor();
    await waitFor(async () => (await rows.count()) === 4, 10_000);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('link', { name: 'Bulk 20' }).waitFor();
    await screenshot(page, 'dashboard-meetings');

    await page.getByRole('button', { name: 'Cancelled', exact: true }).click();
    await page.getByRole('link', { name: 'Standup' }).waitFor();
    await waitFor(async () => (await rows.count()) === 1, 10_000);
  });

  it('edits the sites allowed to embed a meeting, naming a bad entry, and offers the embed code', async () => {
    const created = await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Embeddable' });
    await page.goto(`${svc.url}/meetings/${created.body.id}`);
    const section = page.getByRole('region', { name: 'Embedding' });
    const field = section.getByLabel('Sites allowed to embed this meeting, one origin per line');
    await field.fill('https://app.example.com\nhttp://insecure.example.com');
    await section.getByRole('button', { name: 'Save allowed sites' }).click();
    await section.getByRole('alert').filter({ hasText: 'http://insecure.example.com:' }).waitFor();
    expect((await call(svc.url, 'GET', `/api/v1/public/meetings/${created.body.id}/embed-origins`, key)).body.origins).toEqual([]);

    await field.fill('HTTPS://App.Example.com\nhttps://*.example.org\n');
    await section.getByRole('button', { name: 'Save allowed sites' }).click();
    await section.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect(await field.inputValue()).toBe('https://app.example.com\nhttps://*.example.org');
    expect((await call(svc.url, 'GET', `/api/v1/public/meetings/${created.body.id}/embed-origins`, key)).body.origins).toEqual([
      'https://app.example.com',
      'https://*.example.org',
    ]);
    await section.getByText('Embed code').click();
    await section.getByText(`meetingCode: '${created.body.code}'`).waitFor();
    await screenshot(page, 'dashboard-meeting-embedding');
  });
});
