import type { Page } from 'playwright-core';
import { createPoll, openPolls, shownVotes, vote } from './support/room-polls-page';
import { clickTool } from './support/browser';
import { hostAndTwoGuests, ownerDashboard, settledScheme } from './support/room-of-three';
import { call } from './support/service-process';
import { createMeeting, eventually, hostLink, joinRoom, pollUntil, saveScreenshot, waitForCount } from './support/browser';
import { startEmbedHost, type EmbedHost } from './support/embed-host';
import { roomSuite } from './support/room-suite';

jest.setTimeout(120_000);

type Scope = { __events: { type: string; [k: string]: unknown }[] };

describe('polls in the room page (host and two guests, and an embedded guest) through the real SFU', () => {
  // One service (on a port it knows as its base URL, for the embed's URLs), one browser, one embedding page server.
  const suite = roomSuite({ fixedBaseUrl: true });
  let embedHost: EmbedHost;
  beforeAll(async () => {
    embedHost = await startEmbedHost();
  });
  afterAll(async () => {
    await embedHost?.close();
  });

  it('the host opens a poll, guests vote, the host sees live results, closing shows the results to everyone', async () => {
    const { meeting, host, ann, bob } = await hostAndTwoGuests(suite, 'Team lunch');

    // Guests have no "New poll".
    await openPolls(ann.page);
    expect(await ann.page.getByTestId('new-poll').isVisible()).toBe(false);

    await openPolls(host.page);
    await host.page.getByTestId('new-poll').click();
    const dialog = host.page.getByTestId('poll-dialog');
    await dialog.getByLabel('Question').fill('Where do we eat?');
    await dialog.getByLabel('Option 1', { exact: true }).fill('Pizza');
    await dialog.getByLabel('Option 2', { exact: true }).fill('Sushi');
    await dialog.getByTestId('poll-add-option').click();
    await dialog.getByLabel('Option 3', { exact: true }).fill('Salad');
    await saveScreenshot(host.page, 'room-poll-dialog');
    await settledScheme(host.page, 'dark');
    await saveScreenshot(host.page, 'room-poll-dialog-dark');
    await settledScheme(host.page, 'light');
    await dialog.getByTestId('poll-create').click();
    await dialog.waitFor({ state: 'hidden' });
    await eventually(async () => expect(await shownVotes(host.page)).toEqual([0, 0, 0]));

    // The guests are told (toast and badge) and vote; neither sees counts while the poll is open.
    await ann.page.getByTestId('poll-card').first().waitFor({ timeout: 10_000 });
    await bob.page.getByTestId('poll-toast').waitFor({ timeout: 10_000 });
    expect(await bob.page.getByTestId('open-polls').locator('.badge').getAttribute('hidden')).toBeNull();
    await vote(ann.page, 'Pizza');
    await eventually(async () => expect(await shownVotes(host.page)).toEqual([1, 0, 0]));
    await vote(bob.page, 'Sushi');
    // Ann changes her mind: the host sees her vote move, not a third vote.
    await vote(ann.page, 'Sushi');
    await eventually(async () => expect(await shownVotes(host.page)).toEqual([0, 2, 0]));
    expect(await ann.page.getByTestId('poll-results').count()).toBe(0);
    const named = await host.page.getByTestId('poll-card').first().locator('.poll-voters').allTextContents();
    expect(named.join(',').split(', ').sort()).toEqual(['Ann Guest', 'Bob Guest']);
    await saveScreenshot(host.page, 'room-poll-live-results');
    await saveScreenshot(bob.page, 'room-phone-poll-vote');

    await host.page.getByTestId('poll-close').click();
    for (const p of [host, ann, bob]) {
      await p.page.locator('[data-testid=poll-card][data-status=closed]').waitFor({ timeout: 10_000 });
      await openPolls(p.page);
      await eventually(async () => expect(await shownVotes(p.page)).toEqual([0, 2, 0]));
    }
    expect(await ann.page.getByTestId('poll-vote').count()).toBe(0);
    await saveScreenshot(ann.page, 'room-poll-closed-results');
    await settledScheme(host.page, 'dark');
    await saveScreenshot(host.page, 'room-poll-closed-results-dark');
    await settledScheme(bob.page, 'dark');
    await saveScreenshot(bob.page, 'room-phone-poll-closed-results-dark');

    const listed = await call(suite.svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/polls`, suite.key);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        question: 'Where do we eat?',
        status: 'closed',
        options: [
          expect.objectContaining({ text: 'Pizza', votes: 0 }),
          expect.objectContaining({ text: 'Sushi', votes: 2 }),
          expect.objectContaining({ text: 'Salad', votes: 0 }),
        ],
      }),
    ]);

    // The dashboard's meeting page shows the poll with its results.
    const dash = await ownerDashboard(suite.browser, suite.svc.url, suite.dataDir, `/meetings/${meeting.id}`);
    try {
      const shown = dash.page.getByTestId('dashboard-poll');
      await shown.waitFor();
      const text = (await shown.textContent()) ?? '';
      expect(text).toContain('Where do we eat?');
      expect(text).toContain('closed');
      expect(text).toMatch(/Sushi2 \(100 %\)(Bob Guest, Ann Guest|Ann Guest, Bob Guest)/);
      expect(text).toMatch(/Pizza0 \(0 %\)/);
      await shown.scrollIntoViewIfNeeded();
      await saveScreenshot(dash.page, 'dashboard-meeting-polls');
      await settledScheme(dash.page, 'dark');
      await saveScreenshot(dash.page, 'dashboard-meeting-polls-dark');
    } finally {
      await dash.close();
    }
  });

  it('an embedded guest hears poll opened/closed (with the results) and breakout joined/left', async () => {
    const meeting = await createMeeting(suite.svc.url, suite.key, {
      title: 'Embedded workshop',
    });
    const origins = await call(suite.svc.url, 'PUT', `/api/v1/public/meetings/${meeting.code}/embed-origins`, suite.key, {
      origins: [embedHost.origin('localhost')],
    });
    expect(origins.status).toBe(200);
    const host = await suite.open(await hostLink(suite.svc.url, suite.key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');

    const context = await suite.browser.newContext({
      viewport: { width: 1100, height: 760 },
    });
    const guest = await context.newPage();
    suite.track({
      page: guest,
      context,
      logs: [],
      close: () => context.close(),
    });
    await guest.goto(
      embedHost.url('localhost', 'esm', {
        serviceUrl: suite.svc.url,
        options: {
          meetingCode: meeting.code,
          name: 'Eve Embedded',
          autoJoin: true,
        },
      }),
    );
    const eventsOf = (page: Page) => page.evaluate(() => (globalThis as unknown as Scope).__events);
    const waitForEvent = (type: string, match: (e: Record<string, unknown>) => boolean) =>
      pollUntil(`event ${type}`, async () => (await eventsOf(guest)).find((e) => e.type === type && match(e)), 45_000);
    await waitForEvent('joined', () => true);
    await waitForCount(host.page, '[data-testid=tile]', 2);

    // A poll: opened without counts for a guest, closed with the results.
    await createPoll(host.page, 'Ship it?', ['Yes', 'No']);
    const openedPoll = await waitForEvent('poll', (e) => e.action === 'opened');
    expect(openedPoll.poll).toMatchObject({
      question: 'Ship it?',
      multiple: false,
      anonymous: false,
      options: [
        { text: 'Yes', votes: null },
        { text: 'No', votes: null },
      ],
    });
    const frame = guest.frameLocator('#meeting iframe');
    await clickTool(frame, 'open-polls');
    await frame.getByTestId('poll-card').first().getByLabel('Yes', { exact: true }).check();
    await frame.getByTestId('poll-vote').click();
    await frame.getByTestId('poll-voted').waitFor();
    await host.page.getByTestId('poll-close').click();
    const closedPoll = await waitForEvent('poll', (e) => e.action === 'closed');
    expect((closedPoll.poll as { options: { votes: number }[] }).options.map((o) => o.votes)).toEqual([1, 0]);

    // A breakout room: joined with one click inside the frame, left with one click back (the closing countdown is
    // room-breakouts.e2e's).
    await clickTool(host.page, 'open-breakouts');
    await host.page.getByTestId('breakout-count').fill('1');
    await host.page.getByTestId('breakout-create').click();
    await host.page.locator('[data-testid=breakout-assign][data-name="Eve Embedded"]').selectOption({ label: 'Room 1' });
    await host.page.locator('[data-testid=breakout-room]').first().getByText('Eve Embedded').waitFor();
    await host.page.getByTestId('breakout-open').click();
    await frame.getByTestId('breakout-join').click();
    const joined = await waitForEvent('breakout', (e) => e.action === 'joined');
    expect(joined.room).toMatchObject({ name: 'Room 1' });
    await frame.getByTestId('breakout-leave').click();
    const left = await waitForEvent('breakout', (e) => e.action === 'left');
    expect(left.room).toEqual(joined.room);
    await waitForCount(host.page, '[data-testid=tile]', 2);
  });
});
