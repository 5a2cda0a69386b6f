import fs from 'node:fs';
import { seedBreakoutMedia, seedMediaResults, seedRecordingFile, seedRecordings } from '@svc/service/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { saveScreenshot, waitForScreen } from './support/browser';
import { freePort, screenshot, startSignedIn, type SignedInDashboard } from './support/dashboard-browser';
import { call, unlimitedKey, waitFor, type ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

/** The viewer's zone in every page of this file, so "your time" is known: Berlin is 8 hours behind Tokyo in January. */
const VIEWER_ZONE = 'Europe/Berlin';

const VARIANTS = [
  { name: 'desktop-light', viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
  { name: 'desktop-dark', viewport: { width: 1280, height: 800 }, colorScheme: 'dark' },
  { name: 'phone-light', viewport: { width: 390, height: 844 }, colorScheme: 'light' },
  { name: 'phone-dark', viewport: { width: 390, height: 844 }, colorScheme: 'dark' },
] as const;

describe('dashboard: running meetings, in Chromium against the real service', () => {
  let dash: SignedInDashboard;
  let dataDir: string;
  let svc: ServiceProcess;
  let context: BrowserContext;
  let page: Page;
  let key: string;

  /** A new signed-in page (the session cookie copied) in the viewer's zone, at `width` and in `colorScheme`. */
  async function signedInPage(variant: (typeof VARIANTS)[number] = VARIANTS[0]): Promise<Page> {
    const ctx = await dash.browser.newContext({
      viewport: variant.viewport,
      colorScheme: variant.colorScheme,
      timezoneId: VIEWER_ZONE,
      acceptDownloads: true,
    });
    await ctx.addCookies(await dash.page.context().cookies());
    return ctx.newPage();
  }

  /** Screenshots of `path` at desktop and phone width, light and dark, after `prepare` ran on each page. */
  async function shootAll(name: string, path: string, prepare: (p: Page) => Promise<void>): Promise<void> {
    for (const variant of VARIANTS) {
      const p = await signedInPage(variant);
      await p.goto(`${svc.url}${path}`);
      await prepare(p);
      await screenshot(p, `${name}-${variant.name}`);
      await p.context().close();
    }
  }

  const api = async (method: string, path: string, body?: unknown) =>
    (await call(svc.url, method, `/api/v1/public${path}`, key, body)).body;

  beforeAll(async () => {
    // A fixed base URL, so the links the service makes (join, host) point at it.
    const port = await freePort();
    dash = await startSignedIn({ PORT: String(port), SVC_BASE_URL: `http://127.0.0.1:${port}` });
    ({ dataDir, svc } = dash);
    key = unlimitedKey(dataDir);
    page = await signedInPage();
    context = page.context();
  });
  afterAll(async () => {
    await context?.close();
    await dash?.close();
  });

  it('Start now puts the signed-in host in the room with their name filled in; the dashboard then shows the meeting live', async () => {
    await page.goto(`${svc.url}/meetings`);
    await page.getByRole('button', { name: 'Start now' }).click();
    await page.waitForURL(/\/m\/[a-z]{3}-[a-z]{4}-[a-z]{3}/);
    const code = /\/m\/([a-z-]+)/.exec(page.url())![1]!;
    expect(await page.getByLabel('Your name').inputValue()).toBe('Owner');
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    expect(await waitForScreen(page)).toBe('room');

    const meeting = await api('GET', `/meetings/${code}`);
    expect(meeting).toMatchObject({ status: 'live', time_zone: VIEWER_ZONE });
    const participants = await api('GET', `/meetings/${meeting.id}/participants`);
    expect(participants.data).toEqual([expect.objectContaining({ name: 'Owner', role: 'host', left_at: null })]);

    const dashboard = await signedInPage();
    await dashboard.goto(`${svc.url}/meetings/${meeting.id}`);
    await dashboard.locator('.page-head').getByText('live', { exact: true }).waitFor();
    await dashboard.getByRole('button', { name: 'Join as host' }).waitFor();
    await dashboard.getByRole('cell', { name: 'Owner' }).waitFor();
    await dashboard.context().close();
    await page.goto(`${svc.url}/meetings`);
  });

  it('creates a meeting with its time zone and settings, shows the problems the API names beside their fields, and edits it', async () => {
    await page.goto(`${svc.url}/meetings`);
    await page.getByRole('button', { name: 'New meeting' }).click();
    const form = page.getByRole('form', { name: 'New meeting' });
    await form.getByLabel('Title').fill('   ');
    await form.getByLabel('Duration (minutes)').fill('0');
    await form.getByRole('button', { name: 'Create meeting' }).click();
    const title = form.getByLabel('Title');
    await waitFor(async () => (await title.getAttribute('aria-invalid')) === 'true', 10_000);
    const titleProblem = page.locator(`[id="${await title.getAttribute('aria-describedby')}"]`);
    expect(await titleProblem.innerText()).toBe('must not be blank');
    const duration = form.getByLabel('Duration (minutes)');
    const durationProblem = page.locator(`[id="${await duration.getAttribute('aria-describedby')}"]`);
    expect(await durationProblem.innerText()).toBe('must be >= 1');
    expect((await api('GET', '/meetings?limit=100')).data.filter((m: { title: string }) => m.title.trim() === '')).toEqual([]);

    await title.fill('Board review');
    await form.getByLabel('Date').fill('2027-01-15');
    await form.getByLabel('Time', { exact: true }).fill('10:30');
    await form.getByLabel('Time zone').selectOption('Asia/Tokyo');
    await duration.fill('45');
    await form.getByLabel(/Waiting room/).check();
    await form.getByLabel(/transcribe automatically/).check();
    await form.getByLabel(/Live captions on from the start/).check();
    await form.getByLabel('Guests may join').fill('30');
    await form.getByRole('button', { name: 'Create meeting' }).click();
    await page.getByRole('heading', { name: 'Board review' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api('GET', `/meetings/${id}`)).toMatchObject({
      scheduled_at: '2027-01-15T10:30:00+09:00',
      time_zone: 'Asia/Tokyo',
      duration_minutes: 45,
      settings: { waiting_room: true, transcription_auto: true, captions: true, join_before_start_minutes: 30 },
      status: 'scheduled',
    });

    // 10:30 in Tokyo is 2:30 at night in Berlin.
    const starts = page.locator('dl.facts dd').nth(2);
    expect(await starts.innerText()).toMatch(/Jan 15, 2027.*10:30\sAM.*\(Asia\/Tokyo\)[\s\S]*2:30\sAM your time/);

    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit meeting' });
    expect(await edit.getByLabel('Time', { exact: true }).inputValue()).toBe('10:30');
    expect(await edit.getByLabel('Time zone').inputValue()).toBe('Asia/Tokyo');
    await edit.getByLabel('Title').fill('Board review (moved)');
    await edit.getByLabel('Time', { exact: true }).fill('11:00');
    await edit.getByLabel(/Waiting room/).uncheck();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Board review (moved)' }).waitFor();
    expect(await api('GET', `/meetings/${id}`)).toMatchObject({
      scheduled_at: '2027-01-15T11:00:00+09:00',
      time_zone: 'Asia/Tokyo',
      settings: { waiting_room: false, transcription_auto: true },
    });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Add to calendar (.ics)' }).click(),
    ]);
    const ics = fs.readFileSync((await download.path())!, 'utf8');
    const meeting = await api('GET', `/meetings/${id}`);
    expect(download.suggestedFilename()).toBe(`${meeting.code}.ics`);
    const lines = ics.replace(/\r\n /g, '').split('\r\n');
    expect(lines).toEqual(expect.arrayContaining(['DTSTART:20270115T020000Z', 'DTEND:20270115T024500Z', `URL:${meeting.join_url}`]));
    expect(lines).toContain('SUMMARY:Board review (moved)');

    await shootAll('dashboard-meeting-two-zones', `/meetings/${id}`, async (p) => {
      await p.getByText('your time').waitFor();
    });
    await shootAll('dashboard-meeting-edit-form', `/meetings/${id}`, async (p) => {
      await p.getByRole('button', { name: 'Edit' }).click();
      const f = p.getByRole('form', { name: 'Edit meeting' });
      await f.getByLabel('Duration (minutes)').fill('2000');
      await f.getByRole('button', { name: 'Save changes' }).click();
      await f.locator('.field-error').filter({ hasText: 'must be <= 1440' }).waitFor();
    });
    await shootAll('dashboard-meeting-create-form', '/meetings', async (p) => {
      await p.getByRole('button', { name: 'New meeting' }).click();
      const f = p.getByRole('form', { name: 'New meeting' });
      await f.getByLabel('Title').fill(' ');
      await f.getByRole('button', { name: 'Create meeting' }).click();
      await f.locator('.field-error').first().waitFor();
    });
  });

  it('shows a failed transcription with its reason and a Retry that queues it again; recording lengths in m:ss', async () => {
    const meeting = await api('POST', '/meetings', {
      title: 'Retro',
      scheduled_at: '2027-03-01T16:00:00-05:00',
      time_zone: 'America/New_York',
      settings: { transcription_auto: true },
    });
    seedRecordingFile(dataDir, meeting.id, { content: 'not a media file', durationSeconds: 10 });
    await page.goto(`${svc.url}/meetings/${meeting.id}`);
    const transcript = page.getByRole('region', { name: 'Transcript' });
    await transcript.getByText('failed', { exact: true }).waitFor({ timeout: 30_000 });
    await transcript.getByText(/Failed: the recording cannot be decoded/).waitFor();
    expect(await page.getByLabel('duration').first().innerText()).toBe('0:10');
    await expect(transcript.getByText('No transcript yet.').count()).resolves.toBe(0);

    const before = (await page.evaluate(`fetch('/dashboard/api/meetings/${meeting.id}/processing').then((r) => r.json())`)) as {
      transcript: { updated_at: string };
    };
    await transcript.getByRole('button', { name: 'Retry' }).click();
    await waitFor(async () => {
      const now = (await page.evaluate(`fetch('/dashboard/api/meetings/${meeting.id}/processing').then((r) => r.json())`)) as {
        transcript: { status: string; updated_at: string };
      };
      return now.transcript.status === 'failed' && now.transcript.updated_at > before.transcript.updated_at;
    }, 30_000);
    await transcript.getByRole('button', { name: 'Retry' }).waitFor();

    await shootAll('dashboard-meeting-failed-transcript', `/meetings/${meeting.id}`, async (p) => {
      const region = p.getByRole('region', { name: 'Transcript' });
      await region.getByRole('button', { name: 'Retry' }).waitFor();
      await region.scrollIntoViewIfNeeded();
    });
  });

  it('lists meetings with their start in their zone and the viewer’s, and shows seeded media', async () => {
    const webinar = await api('POST', '/meetings', {
      title: 'Spring launch',
      kind: 'webinar',
      slug: 'spring-launch',
      scheduled_at: '2027-04-01T09:00:00+02:00',
      time_zone: 'Europe/Paris',
    });
    const media = seedMediaResults(dataDir, webinar.id);
    await page.goto(`${svc.url}/meetings/${webinar.id}`);
    await page.getByText(media.tldr).waitFor();
    const summary = page.getByRole('region', { name: 'Summary' });
    expect(await summary.getByRole('listitem').filter({ hasText: 'Write the release notes' }).innerText()).toMatch(
      /^1:05 Write the release notes \(Ada, due Fri, Apr 2, 2027\)$/,
    );
    expect(await summary.getByRole('listitem').filter({ hasText: 'Ship on Friday' }).innerText()).toBe('0:12 Ship on Friday');
    await waitFor(async () => (await page.getByLabel('duration').count()) === 2, 10_000);
    expect(await page.getByLabel('duration').first().innerText()).toBe('2:05');

    await page.goto(`${svc.url}/meetings`);
    const row = page.getByRole('row').filter({ hasText: 'Board review (moved)' });
    expect(await row.innerText()).toMatch(/11:00\sAM.*\(Asia\/Tokyo\)[\s\S]*3:00\sAM your time/);
    await shootAll('dashboard-meetings-list', '/meetings', async (p) => {
      await p.getByRole('link', { name: 'Spring launch' }).waitFor();
    });
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
    await page.getByRole('link', { name: 'Board review (moved)' }).waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('link', { name: 'Bulk 20' }).waitFor();

    await page.getByRole('button', { name: 'Live', exact: true }).click();
    await waitFor(async () => (await rows.count()) === 1, 10_000);
    await page.getByRole('link', { name: 'Owner’s meeting' }).waitFor();
  });

  it('reopens a cancelled meeting from its page: scheduled again, with the same join link', async () => {
    const created = (await api('POST', '/meetings', { title: 'Reopened review' })) as { id: string; join_url: string };
    expect((await call(svc.url, 'DELETE', `/api/v1/public/meetings/${created.id}`, key)).status).toBe(200);
    await page.goto(`${svc.url}/meetings/${created.id}`);
    await page.getByRole('button', { name: 'Reopen meeting' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reopen meeting' }).click();
    await page.getByRole('button', { name: 'Start now' }).waitFor();
    expect(await api('GET', `/meetings/${created.id}`)).toMatchObject({ status: 'scheduled', join_url: created.join_url });
    await screenshot(page, 'dashboard-meeting-reopened-desktop-light');
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
    await section.getByText('Embed code').click();
    await section.getByText(`meetingCode: '${created.body.code}'`).waitFor();
    await screenshot(page, 'dashboard-meeting-embedding');
  });

  it("shows each breakout room's own recording (plays, downloads) and transcript (opened from the keyboard), apart from the main room's", async () => {
    const meeting = await api('POST', '/meetings', { title: 'Design sprint', settings: { transcription_auto: false } });
    const sentences = ['Customers asked for a faster search page.', 'Better reports come next.'];
    const seeded = seedBreakoutMedia(dataDir, meeting.id, { room: 'Design', person: 'Ann', content: 'breakout-webm-bytes', sentences });
    await page.goto(`${svc.url}/meetings/${meeting.id}`);
    const room = page.getByTestId('dashboard-breakout').filter({ hasText: 'Design' });
    const recordings = room.getByRole('list', { name: 'Recordings of Design' });
    const download = recordings.getByRole('link', { name: 'Download' });
    await download.waitFor();
    expect(await room.getByRole('listitem').filter({ hasText: 'Ann' }).first().innerText()).toBe('Ann');
    expect(await recordings.getByLabel('duration').innerText()).toBe('0:10');
    // Its 19 bytes read as 1 KB, not "0.0 MB".
    expect(await recordings.locator('.endpoint-head').innerText()).toContain('0:10, 1 KB');
    const file = `/dashboard/api/v1/recordings/${seeded.recordingId}/download`;
    expect(await download.getAttribute('href')).toBe(file);
    expect(await recordings.getByLabel('Play the recording').getAttribute('src')).toBe(file);
    expect(await page.evaluate(`fetch('${file}').then((r) => r.text())`)).toBe('breakout-webm-bytes');
    // The main room's sections leave the room's recording and transcript to it.
    const main = page.getByRole('region', { name: 'Recordings' });
    await main.getByText('No recordings.').waitFor();
    expect(await main.getByText(/made in breakout rooms/).innerText()).toBe(
      'One more recording was made in breakout rooms: see Breakout rooms.',
    );
    await page.getByRole('region', { name: 'Transcript' }).getByText('No transcript: this meeting has no transcribed recording.').waitFor();

    // The room's transcript: ready, opened from the keyboard (Tab from the section's Refresh, then Enter).
    expect(await room.locator('.breakout-transcript p').first().innerText()).toMatch(/^Transcript: ready/);
    const focused = () => page.evaluate('document.activeElement?.textContent');
    await page.getByRole('region', { name: 'Breakout rooms' }).getByRole('button', { name: 'Refresh' }).focus();
    for (let i = 0; i < 10 && (await focused()) !== 'Show transcript'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Show transcript');
    await page.keyboard.press('Enter');
    const hide = room.getByRole('button', { name: 'Hide transcript' });
    await hide.waitFor();
    expect(await hide.getAttribute('aria-expanded')).toBe('true');
    const text = room.locator(`#${await hide.getAttribute('aria-controls')}`);
    expect(await text.innerText()).toBe(`0:00 Ann: ${sentences[0]}\n\n0:05 Ann: ${sentences[1]}`);
    expect(seeded.transcriptText).toBe(sentences.join(' '));

    for (const variant of VARIANTS.filter((v) => v.name === 'desktop-light' || v.name === 'phone-dark')) {
      const p = await signedInPage(variant);
      await p.goto(`${svc.url}/meetings/${meeting.id}`);
      await p.getByRole('button', { name: 'Show transcript' }).click();
      await p.getByText(sentences[1]!).waitFor();
      await screenshot(p, `dashboard-meeting-breakout-media-${variant.name}`);
      await p.context().close();
    }
  });

  it('lists every recording of a meeting with more than 100, loaded once, page by page, for the Recordings section and the breakout rooms', async () => {
    const meeting = await api('POST', '/meetings', { title: 'Long workshop', settings: { transcription_auto: false } });
    // The breakout room's recording is the oldest, so the newest-first list gives it on the second page.
    seedBreakoutMedia(dataDir, meeting.id, { room: 'Design', person: 'Ann', content: 'breakout-webm-bytes', sentences: ['Hello.'] });
    seedRecordings(dataDir, meeting.id, 120);
    const requested: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (r.url().includes(`/meetings/${meeting.id}/recordings`)) requested.push(new URL(r.url()).search);
    };
    page.on('request', onRequest);
    try {
      await page.goto(`${svc.url}/meetings/${meeting.id}`);
      const main = page.getByRole('region', { name: 'Recordings' });
      await waitFor(async () => (await main.getByRole('listitem').count()) === 120, 15_000);
      expect(await main.getByText(/made in breakout rooms/).innerText()).toBe(
        'One more recording was made in breakout rooms: see Breakout rooms.',
      );
      const room = page.getByTestId('dashboard-breakout').filter({ hasText: 'Design' });
      await room.getByRole('list', { name: 'Recordings of Design' }).getByRole('link', { name: 'Download' }).waitFor();
      expect(requested).toEqual(['?limit=100', expect.stringMatching(/^\?limit=100&cursor=./)]);
    } finally {
      page.off('request', onRequest);
    }
  });

  it("follows a breakout room's transcript while it is made, as the meeting's own: in progress, then failed, without a Refresh", async () => {
    const meeting = await api('POST', '/meetings', { title: 'Workshop', settings: { transcription_auto: false } });
    // The room's transcription runs 25 s from now and fails (the file is no media).
    seedBreakoutMedia(dataDir, meeting.id, {
      room: 'Design',
      person: 'Ann',
      content: 'no media',
      sentences: ['Hello.'],
      transcribeInMs: 25_000,
    });
    const pages = [];
    for (const variant of [VARIANTS[0], VARIANTS[3]]) {
      const p = await signedInPage(variant);
      await p.goto(`${svc.url}/meetings/${meeting.id}`);
      const room = p.getByTestId('dashboard-breakout').filter({ hasText: 'Design' });
      await room.getByText('in progress', { exact: true }).waitFor();
      pages.push({ p, room, name: variant.name });
    }
    for (const { p, room, name } of pages) {
      await room.scrollIntoViewIfNeeded();
      await saveScreenshot(p, `dashboard-meeting-breakout-transcript-in-progress-${name}`);
    }
    // A poll that fails (the network gone for a moment) keeps the room shown, in progress, with the error; polling goes
    // on (a failed poll used to empty the list, which stopped it until Refresh).
    const sections = pages.map(({ p }) => p.getByRole('region', { name: 'Breakout rooms' }));
    await Promise.all(pages.map(({ p }) => p.context().setOffline(true)));
    for (const [i, { p, room, name }] of pages.entries()) {
      const alert = sections[i]!.getByRole('alert');
      await alert.waitFor();
      // Told in a sentence (not the browser's "Failed to fetch"), saying the page goes on trying.
      expect(await alert.innerText()).toBe('Cannot reach the service. Check your connection; this page retries on its own.');
      expect(await room.getByText('in progress', { exact: true }).isVisible()).toBe(true);
      await room.scrollIntoViewIfNeeded();
      await saveScreenshot(p, `dashboard-meeting-breakout-poll-failed-${name}`);
    }
    await Promise.all(pages.map(({ p }) => p.context().setOffline(false)));
    for (const section of sections) await section.getByRole('alert').waitFor({ state: 'detached' });
    // The job runs and fails: both pages show it on their own.
    for (const { p, room, name } of pages) {
      await room.getByText('failed', { exact: true }).waitFor({ timeout: 45_000 });
      await room.getByText(/Transcribing this room’s recording failed/).waitFor();
      await room.scrollIntoViewIfNeeded();
      await saveScreenshot(p, `dashboard-meeting-breakout-transcript-failed-${name}`);
      await p.context().close();
    }
  });
});
