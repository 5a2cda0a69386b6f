import fs from 'node:fs';
import { startService, svcCli, tempDataDir, type ServiceProcess } from './support/service-process';

/** n fragments that each spread the next one twice, the last spreading one that does not exist: 2^n paths in about 40 bytes a fragment. */
function fragmentBomb(n: number): string {
  const chain = Array.from({ length: n - 1 }, (_, i) => `fragment A${i + 1} on Query { ...A${i + 2} ...A${i + 2} }`);
  return `{ ...A1 } ${chain.join(' ')} fragment A${n} on Query { ...Missing }`;
}

describe('GraphQL request limits in the real service process', () => {
  let dataDir: string;
  let svc: ServiceProcess | undefined;
  let anon: string;
  beforeAll(async () => {
    dataDir = tempDataDir();
    svc = await startService(dataDir);
    anon = (JSON.parse(svcCli(dataDir, 'project', 'keys', '--json').stdout) as { anon_key: string }).anon_key;
  });
  afterAll(async () => {
    // SIGKILL: a service whose event loop is stuck (the failure this suite looks for) cannot run its SIGTERM handler.
    await svc?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const graphql = async (query: string) => {
    const res = await fetch(`${svc!.url}/project/graphql/v1`, {
      method: 'POST',
      headers: { apikey: anon, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, body: (await res.json()) as { data: unknown; errors?: { message: string }[] } };
  };

  it('refuses a fragment bomb sent with the anon key, and answers /healthz while it is in flight', async () => {
    expect(await graphql('{ __typename }')).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
    const bomb = fragmentBomb(40);
    expect(bomb.length).toBeLessThan(2_000);
    const refused = graphql(bomb);
    const health = fetch(`${svc!.url}/healthz`).then((r) => r.status);
    // Before the fix the size rule walked all 2^40 paths: neither answer ever came.
    expect(await health).toBe(200);
    expect(await refused).toEqual({ status: 200, body: { data: null, errors: [{ message: 'Unknown fragment "Missing".' }] } });
    expect(await graphql('{ __typename }')).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  }, 60_000);

  it('refuses the same bomb ending in a field for selecting it too often, before validating the rest', async () => {
    const bomb = fragmentBomb(40).replace('...Missing', '__typename');
    expect(await graphql(bomb)).toEqual({
      status: 200,
      body: { data: null, errors: [{ message: 'Query selects "__typename" more than 50 times in one selection set' }] },
    });
  });
});
