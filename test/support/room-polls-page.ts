import type { Page } from 'playwright-core';
import { clickTool } from './browser';

/** The vote counts the first poll card of a room page shows, in option order. */
export async function shownVotes(page: Page): Promise<number[]> {
  return page
    .getByTestId('poll-card')
    .first()
    .getByTestId('poll-result')
    .evaluateAll((items) => {
      return items.map((item) => Number((item as unknown as { getAttribute(name: string): string | null }).getAttribute('data-votes')));
    });
}

/** Opens the polls panel of a room page unless it is open (at phone width through the toolbar's "More" menu). */
export async function openPolls(page: Page): Promise<void> {
  const button = page.getByTestId('open-polls');
  if ((await button.getAttribute('aria-expanded')) === 'true') return;
  await clickTool(page, 'open-polls');
  await page.getByTestId('polls-panel').waitFor();
}

/** Votes for the option labelled `text` in the first poll card. */
export async function vote(page: Page, text: string): Promise<void> {
  await openPolls(page);
  const card = page.getByTestId('poll-card').first();
  await card.getByLabel(text, { exact: true }).check();
  await card.getByTestId('poll-vote').click();
  await card.getByTestId('poll-voted').waitFor({ timeout: 10_000 });
}

/** A host opens a poll with `question` and `options` through the polls panel's New poll dialog. */
export async function createPoll(page: Page, question: string, options: string[]): Promise<void> {
  await openPolls(page);
  await page.getByTestId('new-poll').click();
  const dialog = page.getByTestId('poll-dialog');
  await dialog.getByLabel('Question').fill(question);
  for (const [i, text] of options.entries()) {
    if (i >= 2) await dialog.getByTestId('poll-add-option').click();
    await dialog.getByLabel(`Option ${i + 1}`, { exact: true }).fill(text);
  }
  await dialog.getByTestId('poll-create').click();
  await dialog.waitFor({ state: 'hidden' });
}
