import { dashboardClient, PROJECT_DRIVERS, startPostgresServer, startTestServer, type PostgresServer, type TestServer } from '../testing';

const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

describe.each(PROJECT_DRIVERS)('the dashboard marks project tables without RLS and enables it on %s', (kind) => {
  let pgServer: PostgresServer | undefined;
  let t: TestServer;
  let anon: string;
  const insertAsAnon = (body: string) =>
    t.request('POST', '/project/graphql/v1', {
      headers: { apikey: anon },
      body: {
        query: `mutation($b: String) { insertIntonotesCollection(objects: [{body: $b}]) { affectedCount } }`,
        variables: { b: body },
      },
    });

  beforeAll(async () => {
    const env: Record<string, string> = {};
    if (kind === 'postgres') {
      pgServer = await startPostgresServer();
      env.SVC_PROJECT_DATABASE_URL = await pgServer.createDatabase('project_tables');
    }
    t = await startTestServer(env);
    await t.project.start();
    anon = t.project.keys().anon;
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await pgServer?.stop();
  }, 60_000);

  it('a table created in the SQL runner is listed as RLS disabled; Enable RLS makes the anon key’s insert refused', async () => {
    const owner = dashboardClient(t);
    await owner.signIn(tokenOf(t.services.dashboard.signInLink().url));
    expect((await owner.call('POST', '/project/sql', { sql: 'create table notes(id serial primary key, body text)' })).status).toBe(200);

    const before = await owner.call('GET', '/project/tables');
    expect(before.status).toBe(200);
    expect(before.body.data).toContainEqual({ schema: 'public', name: 'notes', rls_enabled: false });
    // What the badge warns about: the public anon key writes the table.
    expect((await insertAsAnon('open')).body).toEqual({ data: { insertIntonotesCollection: { affectedCount: 1 } } });

    const enabled = await owner.call('POST', '/project/tables/notes/enable-rls');
    expect(enabled).toMatchObject({ status: 200, body: { schema: 'public', name: 'notes', rls_enabled: true } });
    expect((await owner.call('GET', '/project/tables')).body.data).toContainEqual({ schema: 'public', name: 'notes', rls_enabled: true });
    expect((await insertAsAnon('closed')).body).toEqual({
      data: null,
      errors: [{ message: 'new row violates row-level security policy for table "notes"' }],
    });
    expect((await owner.call('POST', '/project/tables/notes/enable-rls')).status).toBe(200);
  });

  it('quotes the table name, answers 404 for a table that does not exist, and needs a signed-in session with its CSRF token', async () => {
    const owner = dashboardClient(t);
    await owner.signIn(tokenOf(t.services.dashboard.signInLink().url));
    const odd = 'Odd "name"; drop table notes; --';
    await t.project.sql(`create table "Odd ""name""; drop table notes; --"(id int)`);
    const res = await owner.call('POST', `/project/tables/${encodeURIComponent(odd)}/enable-rls`);
    expect(res).toMatchObject({ status: 200, body: { name: odd, rls_enabled: true } });
    const names = (await owner.call('GET', '/project/tables')).body.data.map((r: { name: string }) => r.name);
    expect(names).toEqual(expect.arrayContaining([odd, 'notes']));

    expect((await owner.call('POST', '/project/tables/nowhere/enable-rls')).status).toBe(404);
    expect((await owner.call('POST', '/project/tables/notes/enable-rls', undefined, { 'x-csrf-token': 'wrong' })).status).toBe(403);
    expect((await dashboardClient(t).call('GET', '/project/tables')).status).toBe(401);
    expect((await dashboardClient(t).call('POST', '/project/tables/notes/enable-rls')).status).toBe(401);
  });
});
