import type { Browser, Page } from 'playwright-core';
import { setPassword } from './dashboard-browser';

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
