import type { Browser, Page } from 'playwright-core';
import {
  createMeeting,
  hostLink,
  joinRoom,
  roomUrl,
  waitForCount,
  waitForMediaFlowing,
  type CreatedMeeting,
  type RoomPage,
} from './browser';
import { setPassword } from './dashboard-browser';
import type { RoomSuite } from './room-suite';

/** Switches the colour scheme and waits for the page's transitions to finish, so a screenshot shows the final colours. */
export async function settledScheme(page: Page, colorScheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.waitForFunction(
    () => (globalThis as unknown as { document: { getAnimations(): unknown[] } }).document.getAnimations().length === 0,
  );
}

/**
 * Opens the dashboard of a room test's service as its owner (owner@localhost, given a password with the CLI) at
 * `path`; `close` ends the browser context.
 */
export async function ownerDashboard(
  browser: Browser,
  url: string,
  dataDir: string,
  path: string,
): Promise<{ page: Page; close(): Promise<void> }> {
  const password = 'a long enough password';
  const result = setPassword(dataDir, 'owner@localhost', password);
  if (result.code !== 0) throw new Error(`svc users set-password failed: ${result.stderr}`);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.getByLabel('Email').fill('owner@localhost');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Meetings', exact: true }).waitFor();
  await page.goto(`${url}${path}`);
  return { page, close: () => context.close() };
}

/** A phone's viewport. */
export const PHONE = { width: 390, height: 844 };

/**
 * A new meeting with its host (Hana Host, desktop) and two guests (Ann Guest on a desktop, Bob Guest on a phone)
 * in the room, everyone seeing three tiles and Ann receiving media.
 */
export async function hostAndTwoGuests(
  suite: RoomSuite,
  title: string,
): Promise<{ meeting: CreatedMeeting; host: RoomPage; ann: RoomPage; bob: RoomPage }> {
  const meeting = await createMeeting(suite.svc.url, suite.key, { title });
  const host = await suite.open(await hostLink(suite.svc.url, suite.key, meeting.id, 'Hana Host'));
  await expectRoom(host.page);
  const ann = await suite.open(roomUrl(suite.svc.url, meeting.code, { name: 'Ann Guest' }));
  await expectRoom(ann.page);
  const bob = await suite.open(roomUrl(suite.svc.url, meeting.code, { name: 'Bob Guest' }), PHONE);
  await expectRoom(bob.page);
  for (const p of [host, ann, bob]) await waitForCount(p.page, '[data-testid=tile]', 3);
  await waitForMediaFlowing(ann.page);
  return { meeting, host, ann, bob };
}

async function expectRoom(page: Page): Promise<void> {
  const screen = await joinRoom(page);
  if (screen !== 'room') throw new Error(`joined the ${screen} screen, not the room`);
}
