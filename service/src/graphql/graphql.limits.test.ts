import { PROJECT_DRIVERS, startTestProject, type TestProject } from '@svc/service/testing';

const TIMEOUT = { data: null, errors: [{ message: 'canceling statement due to statement timeout' }] };

/** A regular expression Postgres spends about a tenth of a millisecond on per row of 25 `a`s, matching none of them. */
const SLOW_REGEX = '(a?){25}a{25}c';

describe.each(PROJECT_DRIVERS)('per-request limits for the anon key on %s', (kind) => {
  let p: TestProject;
  beforeAll(async () => {
    p = await startTestProject(kind, { statementTimeoutMs: 1_000 });
    await p.sql(`create table word(id serial primary key, s text not null);
      insert into word(s) select repeat('a', 25) || i from generate_series(1, 40000) i;
      create table tree(id int primary key, parent_id int references tree(id));
      insert into tree values (1, null);
      create table saved(id int primary key);`);
  }, 180_000);
  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const ids = (r: { data: unknown }) =>
    (r.data as { wordCollection: { edges: { node: { id: number } }[] } }).wordCollection.edges.map((e) => e.node.id);

  it('cuts off a statement past the statement timeout, answers the requests behind it, and keeps what was committed', async () => {
    expect(await p.gql(`mutation { insertIntosavedCollection(objects: [{id: 1}]) { affectedCount } }`, {}, p.keys.serviceRole)).toEqual({
      data: { insertIntosavedCollection: { affectedCount: 1 } },
    });
    const slow = p.gql(`query($re: String) { wordCollection(filter: {s: {regex: $re}}) { edges { node { id } } } }`, { re: SLOW_REGEX });
    const behind = p.gql(`{ wordCollection(first: 2) { edges { node { id } } } }`);
    expect(await slow).toEqual(TIMEOUT);
    expect(ids(await behind)).toEqual([1, 2]);
    expect(await p.gql(`{ savedCollection { edges { node { id } } } }`)).toEqual({
      data: { savedCollection: { edges: [{ node: { id: 1 } }] } },
    });
  }, 120_000);

  it('cuts off a function that sleeps, and the next request runs', async () => {
    await p.sql(`create function sleepy() returns int stable language sql as $$ select 1 from pg_sleep(30) $$`);
    expect(await p.gql(`{ sleepy }`)).toEqual(TIMEOUT);
    const next = await p.gql(`{ wordCollection(first: 1) { edges { node { id } } } }`);
    expect(ids(next)).toEqual([1]);
  }, 60_000);

  it('answers a request whose GraphQL thread stops with "Internal error", and the next request runs on a new thread', async () => {
    const claims = p.project.authenticate(p.keys.anon, undefined);
    const cut = p.engine.respond({ query: `{ wordCollection(first: 1) { edges { node { id } } } }` }, claims);
    await p.engine.close();
    expect(JSON.parse(await cut)).toEqual({ data: null, errors: [{ message: 'Internal error' }] });
    expect(ids(await p.gql(`{ wordCollection(first: 1) { edges { node { id } } } }`))).toEqual([1]);
  }, 60_000);

  it('refuses an operation with more root fields than the limit, aliases included, before running any', async () => {
    const aliased = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `w${i}: wordCollection(first: 1) { edges { node { id } } }`).join(' ')} }`;
    expect(await p.gql(aliased(21))).toEqual({
      data: null,
      errors: [{ message: 'Query selects too many root fields: the limit is 20, aliases included' }],
    });
    const twenty = (await p.gql(aliased(20))) as { data: Record<string, unknown> };
    expect(Object.keys(twenty.data)).toHaveLength(20);
    const inserts = `mutation { ${Array.from({ length: 21 }, (_, i) => `i${i}: insertIntosavedCollection(objects: [{id: ${100 + i}}]) { affectedCount }`).join(' ')} }`;
    expect((await p.gql(inserts, {}, p.keys.serviceRole)).errors).toEqual([
      { message: 'Query selects too many root fields: the limit is 20, aliases included' },
    ]);
    expect(await p.gql(`{ savedCollection(filter: {id: {gte: 100}}) { edges { node { id } } } }`, {}, p.keys.serviceRole)).toEqual({
      data: { savedCollection: { edges: [] } },
    });
  });

  it('refuses a selection set that selects one response key more than 50 times, directly or through fragments', async () => {
    const refused = { data: null, errors: [{ message: 'Query selects "w" more than 50 times in one selection set' }] };
    const field = 'w: wordCollection(first: 1) { edges { node { id } } }';
    expect(await p.gql(`{ ${field.repeat(51)} }`)).toEqual(refused);
    expect(await p.gql(`{ ${`... on Query { ${field} } `.repeat(51)}}`)).toEqual(refused);
    const fragments = Array.from({ length: 51 }, (_, i) => `fragment F${i} on Query { ${field} }`);
    expect(await p.gql(`{ ${fragments.map((_, i) => `...F${i}`).join(' ')} } ${fragments.join(' ')}`)).toEqual(refused);
    expect(await p.gql(`{ ${field.repeat(50)} }`)).toEqual({ data: { w: { edges: [{ node: { id: 1 } }] } } });
  });

  it('refuses a query whose nested pages could return more rows than the limit, and serves the same query with smaller pages', async () => {
    const nested = (first: string) => `{ ${`treeCollection${first} { edges { node { `.repeat(4)}id ${'} } } '.repeat(4)}}`;
    expect(await p.gql(nested(''))).toEqual({
      data: null,
      errors: [{ message: 'Query may return more than 30000 rows: ask nested collections for fewer with first or last' }],
    });
    expect(await p.gql(nested('(first: 10)'))).toEqual({
      data: { treeCollection: { edges: [{ node: { treeCollection: { edges: [] } } }] } },
    });
  });
});
