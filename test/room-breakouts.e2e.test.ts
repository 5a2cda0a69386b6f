import type { Page } from 'playwright-core';
import { call } from './support/service-process';
import { clickTool, eventually, pollUntil, receiveStats, saveScreenshot, waitForMediaFlowing } from './support/browser';
import { createPoll, shownVotes, vote } from './support/room-polls-page';
import { hostAndTwoGuests, ownerDashboard, settledScheme } from './support/room-of-three';
import { roomSuite } from './support/room-suite';

jest.setTimeout(180_000);

/** Opens the breakout rooms panel (through "More" at phone width). */
async function openBreakouts(page: Page): Promise<void> {
  const button = page.getByTestId('open-breakouts');
  if ((await button.getAttribute('aria-expanded')) === 'true') return;
  await clickTool(page, 'open-breakouts');
  await page.getByTestId('breakouts-panel').waitFor();
}

/** The names on the tiles of a page, sorted. */
async function tileNames(page: Page): Promise<string[]> {
  const labels = await page.locator('[data-testid=tile] .tile-name').allTextContents();
  return labels.map((l) => l.replace(/\s*\(.*\)\s*$/, '').trim()).sort();
}

/** Waits until the page's tiles show exactly `names`. */
async function waitForTiles(page: Page, names: string[]): Promise<void> {
  const expected = JSON.stringify([...names].sort());
  let shown: string[] = [];
  await pollUntil(
    () => `tiles ${JSON.stringify(shown)}, expected ${expected}`,
    async () => {
      shown = await tileNames(page);
      return JSON.stringify(shown) === expected;
    },
    20_000,
  );
}

/** Drops the page's signalling socket as a network blip would (the page reconnects on its own). */
async function dropSocket(page: Page): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { __svcRoom: { dropSocket(): void } }).__svcRoom.dropSocket());
}

/** Waits for media on a receive transport other than the one the page had before (the page moved to another router). */
async function mediaAfterMove(page: Page, before: string | null): Promise<void> {
  await waitForMediaFlowing(page, {
    frames: 5,
    sinceTransport: before ?? undefined,
    timeoutMs: 30_000,
  });
}

describe('breakout rooms in the room page, host and two guests through the real SFU', () => {
  const suite = roomSuite();

  it('the host prepares two rooms, assigns one guest to each and opens them; guests move with one click, see only their room; closing brings everyone back after the countdown', async () => {
    const { meeting, host, ann, bob } = await hostAndTwoGuests(suite, 'Workshop');

    // Guests have no breakout rooms button until they are assigned.
    expect(await ann.page.getByTestId('open-breakouts').isHidden()).toBe(true);
    await openBreakouts(host.page);
    await host.page.getByTestId('breakout-count').fill('2');
    await host.page.getByTestId('breakout-create').click();
    await host.page.getByTestId('breakout-room').nth(1).waitFor();
    await host.page.locator('[data-testid=breakout-assign][data-name="Ann Guest"]').selectOption({ label: 'Room 1' });
    await host.page.locator('[data-testid=breakout-room]').first().getByText('Ann Guest').waitFor();
    await host.page.locator('[data-testid=breakout-assign][data-name="Bob Guest"]').selectOption({ label: 'Room 2' });
    await host.page.locator('[data-testid=breakout-room]').nth(1).getByText('Bob Guest').waitFor();
    await saveScreenshot(host.page, 'room-breakouts-host-prepare');
    await host.page.getByTestId('breakout-open').click();
    await host.page.getByTestId('breakout-close').waitFor();

    // One click each: the page leaves the main router for its breakout room's.
    const annBefore = (await receiveStats(ann.page)).transportId;
    await ann.page.getByTestId('breakout-join').click();
    await ann.page.getByTestId('breakout-current').filter({ hasText: 'Room 1' }).waitFor();
    await bob.page.getByTestId('breakout-join').click();
    await bob.page.getByTestId('breakout-current').filter({ hasText: 'Room 2' }).waitFor();
    await waitForTiles(ann.page, ['Ann Guest']);
    await waitForTiles(bob.page, ['Bob Guest']);
    await waitForTiles(host.page, ['Hana Host']);
    await saveScreenshot(bob.page, 'room-phone-breakout-alone');

    // The host visits Room 1: Ann sees (and receives) only the host.
    await host.page.locator('[data-testid=breakout-room]').first().getByTestId('breakout-enter').click();
    await waitForTiles(ann.page, ['Ann Guest', 'Hana Host']);
    await waitForTiles(host.page, ['Ann Guest', 'Hana Host']);
    await mediaAfterMove(ann.page, annBefore).catch((err) => {
      throw new Error(`${String(err)}\nbefore ${annBefore}\n${ann.logs.filter((l) => /Transport|Breakout|consum/i.test(l)).join('\n')}`);
    });
    expect(await tileNames(bob.page)).toEqual(['Bob Guest']);
    await saveScreenshot(ann.page, 'room-breakout-visited');

    // Ann's socket drops (a network blip): her page reconnects on its own and is back in Room 1, not the main
    // room, with the host's media on a new transport of Room 1's router.
    const annVisited = await receiveStats(ann.page);
    await dropSocket(ann.page);
    await pollUntil(
      'Ann to reconnect as a new peer',
      async () => {
        const now = await receiveStats(ann.page);
        return now.peerId !== null && now.peerId !== annVisited.peerId;
      },
      20_000,
    );
    await ann.page.getByTestId('breakout-current').filter({ hasText: 'Room 1' }).waitFor();
    await waitForTiles(ann.page, ['Ann Guest', 'Hana Host']);
    await waitForTiles(host.page, ['Ann Guest', 'Hana Host']);
    await mediaAfterMove(ann.page, annVisited.transportId);
    expect(await tileNames(bob.page)).toEqual(['Bob Guest']);
    await saveScreenshot(ann.page, 'room-breakout-reconnected');
    await openBreakouts(host.page);
    await saveScreenshot(host.page, 'room-breakouts-host-open');
    await settledScheme(host.page, 'dark');
    await saveScreenshot(host.page, 'room-breakouts-host-open-dark');
    await settledScheme(host.page, 'light');

    // A message to every room, then on to Room 2.
    await host.page.getByTestId('breakout-message').fill('Five minutes left');
    await host.page.getByTestId('breakout-broadcast').click();
    await bob.page.getByTestId('breakout-message-toast').filter({ hasText: 'Five minutes left' }).waitFor();
    await host.page.locator('[data-testid=breakout-room]').nth(1).getByTestId('breakout-enter').click();
    await waitForTiles(bob.page, ['Bob Guest', 'Hana Host']);
    await waitForTiles(ann.page, ['Ann Guest']);
    // Bob stays on his breakout room's transport; the host's media arrives on it.
    await waitForMediaFlowing(bob.page, { frames: 5, timeoutMs: 30_000 });
    await settledScheme(bob.page, 'dark');
    await saveScreenshot(bob.page, 'room-phone-breakout-visited-dark');

    // Polls are meeting-wide: the host opens one from inside Room 2; Ann votes in Room 1 and Bob in Room 2,
    // the host sees both votes live, and closing shows the results in both rooms.
    await createPoll(host.page, 'Which room finished first?', ['Room 1', 'Room 2']);
    await ann.page.getByTestId('poll-toast').waitFor({ timeout: 10_000 });
    await vote(ann.page, 'Room 1');
    await vote(bob.page, 'Room 2');
    await eventually(async () => expect(await shownVotes(host.page)).toEqual([1, 1]));
    await saveScreenshot(bob.page, 'room-phone-breakout-poll-dark');
    await host.page.getByTestId('poll-close').click();
    for (const p of [ann, bob]) {
      await p.page.locator('[data-testid=poll-card][data-status=closed]').waitFor({ timeout: 10_000 });
      await eventually(async () => expect(await shownVotes(p.page)).toEqual([1, 1]));
    }
    expect(await ann.page.getByTestId('breakout-current').textContent()).toContain('Room 1');
    await saveScreenshot(ann.page, 'room-breakout-poll-closed');
    await openBreakouts(host.page);

    // Close all: everyone is told the countdown, then all are back in the main room and see each other.
    const closingStarted = Date.now();
    await host.page.getByTestId('breakout-close').click();
    await ann.page.getByTestId('breakout-countdown').waitFor();
    await saveScreenshot(ann.page, 'room-breakout-closing');
    await settledScheme(ann.page, 'dark');
    await saveScreenshot(ann.page, 'room-breakout-closing-dark');
    const annInBreakout = (await receiveStats(ann.page)).transportId;
    // The owner signs in to the dashboard during the countdown (its meeting page is checked once the rooms are closed).
    const dashOpening = ownerDashboard(suite.browser, suite.svc.url, suite.dataDir, `/meetings/${meeting.id}`);
    dashOpening.catch(() => undefined);
    for (const p of [host, ann, bob]) {
      await p.page.getByTestId('breakout-countdown').waitFor({ state: 'detached', timeout: 45_000 });
      await waitForTiles(p.page, ['Ann Guest', 'Bob Guest', 'Hana Host']);
    }
    // Not before the 30-second countdown is over (counted from just before the click).
    expect(Date.now() - closingStarted).toBeGreaterThanOrEqual(30_000);
    await mediaAfterMove(ann.page, annInBreakout);
    expect(await ann.page.getByTestId('breakout-current').count()).toBe(0);

    const listed = await call(suite.svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/breakout-rooms`, suite.key);
    expect(listed.status).toBe(200);
    expect(
      listed.body.data.map((r: { name: string; status: string; participants: { name: string }[] }) => [
        r.name,
        r.status,
        r.participants.map((p) => p.name),
      ]),
    ).toEqual([
      ['Room 1', 'closed', ['Ann Guest']],
      ['Room 2', 'closed', ['Bob Guest']],
    ]);

    // The dashboard's meeting page lists the rooms with who was in each.
    const dash = await dashOpening;
    try {
      await dash.page.reload();
      const shown = dash.page.getByTestId('dashboard-breakout');
      await shown.nth(1).waitFor();
      expect(await shown.allTextContents()).toEqual(['Room 1closedAnn Guest', 'Room 2closedBob Guest']);
      await shown.first().scrollIntoViewIfNeeded();
      await saveScreenshot(dash.page, 'dashboard-meeting-breakouts');
      await settledScheme(dash.page, 'dark');
      await saveScreenshot(dash.page, 'dashboard-meeting-breakouts-dark');
    } finally {
      await dash.close();
    }
  });
});
