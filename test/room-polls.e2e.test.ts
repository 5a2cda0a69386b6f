import type { Page } from 'playwright-core';
import { hostAndTwoGuests, ownerDashboard, settledScheme } from './support/room-of-three';
import { call } from './support/service-process';
import { eventually, saveScreenshot } from './support/browser';
import { roomSuite } from './support/room-suite';

jest.setTimeout(120_000);

/** The vote counts the first poll card shows, in option order. */
async function shownVotes(page: Page): Promise<number[]> {
  const counts = await page
    .getByTestId('poll-card')
    .first()
    .getByTestId('poll-result')
    .evaluateAll((items) => {
      return items.map((item) => Number((item as unknown as { getAttribute(name: string): string | null }).getAttribute('data-votes')));
    });
  return counts;
}

/** Opens the polls panel unless it is open. */
async function openPolls(page: Page): Promise<void> {
  const button = page.getByTestId('open-polls');
  if ((await button.getAttribute('aria-expanded')) === 'true') return;
  if (await button.isVisible()) await button.click();
  else {
    // At phone width the toolbar's middle group sits in its "More" menu.
    await page.getByTestId('more').click();
    await page.getByTestId('more-open-polls').click();
  }
  await page.getByTestId('polls-panel').waitFor();
}

/** Votes for the option labelled `text` in the first poll card. */
async function vote(page: Page, text: string): Promise<void> {
  await openPolls(page);
  const card = page.getByTestId('poll-card').first();
  await card.getByLabel(text, { exact: true }).check();
  await card.getByTestId('poll-vote').click();
  await card.getByTestId('poll-voted').waitFor({ timeout: 10_000 });
}

describe('polls in the room page, host and two guests through the real SFU', () => {
  const suite = roomSuite();

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
});
