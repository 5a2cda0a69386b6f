import type { Page } from 'playwright-core';
import { screenshot, startSignedIn, type SignedInDashboard } from './support/dashboard-browser';

jest.setTimeout(240_000);

describe('dashboard: Project tables without row-level security are marked, and "Enable RLS" closes them to the anon key', () => {
  let dash: SignedInDashboard;
  let page: Page;

  beforeAll(async () => {
    dash = await startSignedIn();
    page = dash.page;
    await page.setViewportSize({ width: 1280, height: 900 });
  });
  afterAll(() => dash?.close());

  const insertAsAnon = async (anon: string, body: string) => {
    const res = await fetch(`${dash.svc.url}/project/graphql/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: anon },
      body: JSON.stringify({ query: `mutation { insertIntotodosCollection(objects: [{body: "${body}"}]) { affectedCount } }` }),
    });
    return (await res.json()) as { data: unknown; errors?: { message: string }[] };
  };
  const row = () => page.getByRole('row').filter({ hasText: 'public.todos' });

  it('a table made in the SQL runner shows "RLS disabled" with a warning; one click enables RLS and the anon insert is refused', async () => {
    await page.getByRole('link', { name: 'Project' }).click();
    await page.getByRole('heading', { name: 'Tables' }).waitFor();
    // The project database starts on first use: on a busy machine that takes a while.
    await page.getByText('No tables in the public schema yet.').waitFor({ timeout: 90_000 });
    const sql = page.getByRole('form', { name: 'SQL runner' });
    await sql.getByLabel(/^SQL/).fill('create table todos (id serial primary key, body text not null)');
    await sql.getByRole('button', { name: 'Run SQL' }).click();

    await row().getByText('RLS disabled').waitFor({ timeout: 30_000 });
    // The IDE took the new table in without a reload.
    await page.getByRole('button', { name: 'todosCollection' }).waitFor();
    await page.getByRole('status').filter({ hasText: '1 table has row-level security disabled' }).waitFor();
    const anon = await page.getByRole('textbox', { name: 'anon key' }).inputValue();
    expect(await insertAsAnon(anon, 'open to anyone')).toEqual({ data: { insertIntotodosCollection: { affectedCount: 1 } } });

    await page.locator('#project-tables-title').scrollIntoViewIfNeeded();
    await screenshot(page, 'dashboard-project-rls-disabled-desktop-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'dashboard-project-rls-disabled-desktop-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await row().getByText('RLS disabled').waitFor();
    await screenshot(page, 'dashboard-project-rls-disabled-phone-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'dashboard-project-rls-disabled-phone-light');
    await page.setViewportSize({ width: 1280, height: 900 });

    await row().getByRole('button', { name: 'Enable RLS on public.todos' }).click();
    await row().getByText('RLS enabled').waitFor();
    expect(await row().getByRole('button').count()).toBe(0);
    expect(await page.getByText('row-level security disabled').count()).toBe(0);
    expect(await insertAsAnon(anon, 'closed now')).toEqual({
      data: null,
      errors: [{ message: 'new row violates row-level security policy for table "todos"' }],
    });
    await screenshot(page, 'dashboard-project-rls-enabled-desktop-light');
    expect(dash.cspViolations).toEqual([]);
  });

  it('a Refresh that cannot reach the service keeps the page shown with one sentence above it (not the browser\'s "Failed to fetch")', async () => {
    const head = page.locator('.page-head + [role="alert"]');
    await page.context().setOffline(true);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await head.waitFor();
    expect(await head.innerText()).toBe('Cannot reach the service. Check your connection, then reload the page.');
    // The tables, the IDE and the keys stay, and the one error is not repeated in the Tables section.
    expect(await row().getByText('RLS enabled').isVisible()).toBe(true);
    expect(await page.getByRole('textbox', { name: 'anon key' }).inputValue()).not.toBe('');
    expect(await page.getByRole('region', { name: 'Tables' }).getByRole('alert').count()).toBe(0);
    expect(await page.getByRole('alert').filter({ hasText: 'Cannot reach the service' }).count()).toBe(1);
    expect(await page.getByText(/Failed to fetch/).count()).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'dashboard-project-offline-desktop-light');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await head.waitFor();
    await screenshot(page, 'dashboard-project-offline-phone-dark');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    // A query the IDE cannot send answers as GraphQL errors do, in the same words.
    await page.getByRole('button', { name: 'todosCollection' }).click();
    await page.getByRole('button', { name: /Execute query/ }).click();
    const response = page.locator('.graphiql-response');
    await response.getByText('Cannot reach the service. Check your connection and try again.').waitFor();
    expect(await response.innerText()).not.toMatch(/Failed to fetch|TypeError/);

    await page.context().setOffline(false);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await head.waitFor({ state: 'detached' });
    await row().getByText('RLS enabled').waitFor();
  });
});
