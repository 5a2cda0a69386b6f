import fs from 'node:fs';
import { call, startService, svcCli, tempDataDir, type ServiceProcess, waitFor, unlimitedKey } from './support/service-process';

describe('the project database in the real service process', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess | undefined;
  beforeAll(() => {
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
  });
  afterAll(async () => {
    await svc?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const eventCounts = () => {
    const out = svcCli(dataDir, 'project', 'sql', 'select count(*)::int as n, count(distinct id)::int as distinct_ids from svc_events');
    if (out.code !== 0) return { n: 0, distinct_ids: 0 };
    return (JSON.parse(out.stdout) as { n: number; distinct_ids: number }[])[0]!;
  };

  it('serves a table created with `svc project sql` at once, and loses or duplicates no project event across a SIGKILL', async () => {
    expect(svcCli(dataDir, 'integrations', 'add-project', '--events', 'registration.created').code).toBe(0);
    svc = await startService(dataDir);
    const keys = JSON.parse(svcCli(dataDir, 'project', 'keys', '--json').stdout) as { service_role_key: string; anon_key: string };
    const gql = async (query: string) => {
      const res = await fetch(`${svc!.url}/project/graphql/v1`, {
        method: 'POST',
        headers: { apikey: keys.service_role_key, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return { status: res.status, body: (await res.json()) as { data: unknown; errors?: unknown } };
    };
    expect(await gql('{ __typename }')).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
    await waitFor(() => fs.existsSync(`${dataDir}/project.sock`), 60_000);
    expect(
      svcCli(dataDir, 'project', 'sql', `create table notes(id serial primary key, body text); insert into notes(body) values ('hi')`).code,
    ).toBe(0);
    expect(await gql('{ notesCollection { edges { node { body } } } }')).toEqual({
      status: 200,
      body: { data: { notesCollection: { edges: [{ node: { body: 'hi' } }] } } },
    });

    // The events table, created ahead with a trigger that makes each insert take 100 ms, so the kill lands mid-delivery.
    const slowTable = `create table svc_events (id text primary key, type text not null, created_at timestamptz not null, data jsonb not null);
      create function slow_insert() returns trigger language plpgsql as $$ begin perform pg_sleep(0.1); return new; end $$;
      create trigger slow before insert on svc_events for each row execute function slow_insert();`;
    expect(svcCli(dataDir, 'project', 'sql', slowTable).code).toBe(0);
    await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Crash webinar', kind: 'webinar', slug: 'crash' });
    const total = 40;
    for (let i = 0; i < total; i++) {
      const r = await call(svc.url, 'POST', '/api/v1/public/webinars/crash/registrations', key, {
        email: `p${i}@example.com`,
        name: `P${i}`,
      });
      expect(r.status).toBe(201);
    }
    await waitFor(() => eventCounts().n >= 5, 30_000);
    await svc.stop('SIGKILL');
    expect(eventCounts().n).toBeLessThan(total);
    svc = await startService(dataDir);
    await waitFor(() => eventCounts().n >= total, 60_000);
    expect(eventCounts()).toEqual({ n: total, distinct_ids: total });
  }, 180_000);
});
