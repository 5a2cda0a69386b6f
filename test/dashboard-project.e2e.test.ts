import type { Page } from 'playwright-core';
import { screenshot, startSignedIn, type SignedInDashboard } from './support/dashboard-browser';
import { waitFor } from './support/service-process';

jest.setTimeout(90_000);

const SETUP = `create table notes (id serial primary key, body text not null, public boolean not null default false);
alter table notes enable row level security;
create policy public_notes on notes for select to anon using (public);
insert into notes (body, public) values ('hello world', true), ('secret plan', false);`;

describe('dashboard: the Project tab (GraphiQL IDE, SQL runner) against the real service', () => {
  let dash: SignedInDashboard;
  let page: Page;

  beforeAll(async () => {
    dash = await startSignedIn();
    page = dash.page;
    await page.setViewportSize({ width: 1280, height: 900 });
  });
  afterAll(() => dash?.close());

  const runQuery = async () => {
    await page.getByRole('button', { name: /Execute query/ }).click();
  };
  const response = () => page.locator('.graphiql-response');
  // Monaco renders spaces as no-break spaces.
  const responseText = async () => (await response().innerText()).replace(/\u00a0/g, ' ');

  it('creates a table with the SQL runner, inserts a collection query by a click, and RLS answers anon and service_role differently', async () => {
    await page.getByRole('link', { name: 'Project' }).click();
    const sql = page.getByRole('form', { name: 'SQL runner' });
    await sql.getByLabel(/^SQL/).fill(SETUP);
    await sql.getByRole('button', { name: 'Run SQL' }).click();
    await page.getByRole('status').filter({ hasText: 'rows affected' }).waitFor({ timeout: 30_000 });

    await page.reload();
    const collection = page.getByRole('button', { name: 'notesCollection' });
    await collection.waitFor({ timeout: 30_000 });
    await collection.click();
    const editor = page.locator('.graphiql-query-editor');
    await editor.getByText('notesCollection(first: 10)').waitFor();

    await runQuery();
    await response().getByText('hello world').waitFor();
    expect(await responseText()).not.toContain('secret plan');
    await screenshot(page, 'dashboard-project-anon');

    await page.getByLabel('Run as').selectOption('service_role');
    await runQuery();
    await response().getByText('secret plan').waitFor();
    expect(await responseText()).toContain('hello world');
    await screenshot(page, 'dashboard-project-service-role');

    await page.getByLabel('Run as').selectOption('user');
    await page.getByRole('button', { name: 'Use this user' }).click();
    await page.getByRole('button', { name: 'New user token' }).waitFor();
    await runQuery();
    await waitFor(async () => /"edges": \[\]/.test(await responseText()), 10_000);
    expect(dash.cspViolations).toEqual([]);
  });

  it('shows the project URL and keys, and reports an SQL error', async () => {
    await page.getByRole('textbox', { name: 'anon key' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Project URL' }).inputValue()).toMatch(/\/project$/);
    const sql = page.getByRole('form', { name: 'SQL runner' });
    await sql.getByLabel(/^SQL/).fill('select * from no_such_table');
    await sql.getByRole('button', { name: 'Run SQL' }).click();
    await sql.getByRole('alert').filter({ hasText: 'no_such_table' }).waitFor();
  });
});
