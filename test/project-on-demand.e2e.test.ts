import fs from 'node:fs';
import { call, startService, svcCli, svcCliAsync, tempDataDir, type ServiceProcess } from './support/service-process';

// The embedded project database starts on first use, so an idle service holds no PostgreSQL; `svc project sql`
// works the moment the service says it listens, and GraphQL starts the database by itself.

describe('the project database on demand (real service process)', () => {
  let dataDir: string;
  let svc: ServiceProcess | undefined;

  beforeEach(() => {
    dataDir = tempDataDir();
  });
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const projectState = async () => (await call(svc!.url, 'GET', '/healthz')).body.project as { driver: string; state: string };

  it('is stopped after start, and `svc project sql` run at once goes through the service, which starts it', async () => {
    svc = await startService(dataDir);
    expect(await projectState()).toEqual({ driver: 'pglite', state: 'stopped' });
    expect(fs.existsSync(`${dataDir}/project.sock`)).toBe(true);
    const created = await svcCliAsync(
      dataDir,
      'project',
      'sql',
      "create table notes(body text); insert into notes values ('hi'); select body from notes",
    );
    expect(created).toMatchObject({ code: 0 });
    expect(JSON.parse(created.stdout)).toEqual([{ body: 'hi' }]);
    expect(await projectState()).toEqual({ driver: 'pglite', state: 'running' });
  });

  it('is started by the first GraphQL request, which waits for it', async () => {
    svc = await startService(dataDir);
    const keys = JSON.parse(svcCli(dataDir, 'project', 'keys', '--json').stdout) as { anon_key: string };
    expect(await projectState()).toMatchObject({ state: 'stopped' });
    const res = await fetch(`${svc.url}/project/graphql/v1`, {
      method: 'POST',
      headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { __typename: 'Query' } });
    expect(await projectState()).toMatchObject({ state: 'running' });
  });
});
