/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk arbitrary JSON answers */
import crypto from 'node:crypto';
import { PROJECT_DRIVERS, startPostgresServer, startTestServer, type PostgresServer, type TestServer } from '@svc/service/testing';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const SECRET = 'test-secret-that-is-long-enough-0123456789';

function jwt(claims: Record<string, unknown>, secret = SECRET, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const body = `${enc(header)}.${enc(claims)}`;
  return `${body}.${crypto.createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** Claims that an SQL literal must carry verbatim: quotes, backslashes, SQL, JSON escapes, non-ASCII. */
const LABELS = [`it's`, `\\'; select pg_sleep(5); --`, `a\\b\\\\c\\n`, `"}; reset role; --`, `$1 $$ $f$`, `ünï \u2028 😀`];

/** The same token with the last character of its signature swapped for another that base64url-decodes to the same bytes. */
function withNonCanonicalEnd(token: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(token.at(-1)!);
  // A 43-character HS256 signature leaves the last character's two low bits unused.
  return token.slice(0, -1) + alphabet[last ^ 1];
}

const SCHEMA = `
create table todo(id serial primary key, owner_id uuid default auth.uid(), title text not null);
alter table todo enable row level security;
create policy own_rows on todo for select to authenticated using (owner_id = auth.uid());
create policy own_insert on todo for insert to authenticated with check (owner_id = auth.uid());
create policy public_rows on todo for select to anon using (owner_id is null);
insert into todo(owner_id, title) values ('${U1}', 'u1 a'), ('${U1}', 'u1 b'), ('${U2}', 'u2 a'), (null, 'public');
create table staff_notes(id serial primary key, body text);
revoke all on staff_notes from anon;
insert into staff_notes(body) values ('n');
create table labelled(id serial primary key, label text not null);
alter table labelled enable row level security;
create policy by_claims on labelled for select to authenticated
  using (label = auth.jwt() ->> 'label' and label = current_setting('request.jwt.claim.sub', true));
insert into labelled(label) values ${LABELS.map((l) => `($v$${l}$v$)`).join(', ')};`;

describe.each(PROJECT_DRIVERS)('project GraphQL over HTTP on %s', (kind) => {
  let pgServer: PostgresServer | undefined;
  let server: TestServer;
  let keys: { anon: string; serviceRole: string };
  const user1 = () => jwt({ sub: U1, role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 600 });
  const user2 = () => jwt({ sub: U2, role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 600 });

  const post = (body: unknown, headers: Record<string, string> = { apikey: keys.anon }) =>
    server.request('POST', '/project/graphql/v1', { body, headers });
  const titles = async (headers: Record<string, string>) => {
    const r = await post({ query: `{ todoCollection { edges { node { title } } } }` }, headers);
    expect(r.status).toBe(200);
    return r.body.data.todoCollection.edges.map((e: any) => e.node.title);
  };
  const everything = async () => titles({ apikey: keys.serviceRole });

  beforeAll(async () => {
    const env: Record<string, string> = { SVC_PROJECT_JWT_SECRET: SECRET };
    if (kind === 'postgres') {
      pgServer = await startPostgresServer();
      env.SVC_PROJECT_DATABASE_URL = await pgServer.createDatabase('project_http');
    }
    server = await startTestServer(env);
    await server.project.start();
    keys = server.project.keys();
    await server.project.sql(SCHEMA);
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await pgServer?.stop();
  }, 60_000);

  describe('row-level security', () => {
    it('anon, two users and service_role each see exactly their rows', async () => {
      expect(await titles({ apikey: keys.anon })).toEqual(['public']);
      expect(await titles({ apikey: keys.anon, authorization: `Bearer ${user1()}` })).toEqual(['u1 a', 'u1 b']);
      expect(await titles({ apikey: keys.anon, authorization: `Bearer ${user2()}` })).toEqual(['u2 a']);
      expect(await everything()).toEqual(['u1 a', 'u1 b', 'u2 a', 'public']);
    });

    it('an insert violating a with check policy fails and inserts nothing; a valid one uses auth.uid()', async () => {
      const bad = await post(
        {
          query: `mutation($o: UUID) { insertIntotodoCollection(objects: [{title: "sneaky", owner_id: $o}]) { affectedCount } }`,
          variables: { o: U2 },
        },
        { apikey: keys.anon, authorization: `Bearer ${user1()}` },
      );
      expect(bad.status).toBe(200);
      expect(bad.body).toEqual({ data: null, errors: [{ message: 'new row violates row-level security policy for table "todo"' }] });
      expect(await everything()).not.toContain('sneaky');
      const good = await post(
        { query: `mutation { insertIntotodoCollection(objects: [{title: "mine"}]) { records { title owner_id } } }` },
        { apikey: keys.anon, authorization: `Bearer ${user2()}` },
      );
      expect(good.body).toEqual({ data: { insertIntotodoCollection: { records: [{ title: 'mine', owner_id: U2 }] } } });
      expect(await titles({ apikey: keys.anon, authorization: `Bearer ${user2()}` })).toEqual(['u2 a', 'mine']);
      await server.project.sql(`delete from todo where title = 'mine'`);
    });

    it('claims reach the policies verbatim, whatever quotes, backslashes or SQL they carry', async () => {
      for (const label of LABELS) {
        const token = jwt({ sub: label, label, role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 600 });
        const r = await post(
          { query: `{ labelledCollection { edges { node { label } } } }` },
          { apikey: keys.anon, authorization: `Bearer ${token}` },
        );
        expect(r.body).toEqual({ data: { labelledCollection: { edges: [{ node: { label } }] } } });
      }
      expect(await titles({ apikey: keys.anon })).toEqual(['public']);
    });

    it('a role without privileges on a table does not see it in the schema', async () => {
      const q = { query: `{ staff_notesCollection { edges { node { body } } } }` };
      const anon = await post(q);
      expect(anon.body.errors[0].message).toBe('Unknown field "staff_notesCollection" on type Query');
      const types = await post({ query: `{ __type(name: "staff_notes") { name } }` });
      expect(types.body).toEqual({ data: { __type: null } });
      expect((await post(q, { apikey: keys.serviceRole })).body).toEqual({
        data: { staff_notesCollection: { edges: [{ node: { body: 'n' } }] } },
      });
    });
  });

  describe('authentication', () => {
    const now = () => Math.floor(Date.now() / 1000);
    it.each([
      ['no apikey', () => ({})],
      ['a malformed apikey', () => ({ apikey: 'not-a-jwt' })],
      ['a forged signature', () => ({ apikey: jwt({ role: 'service_role' }, 'another-secret-another-secret-another') })],
      ['an expired key', () => ({ apikey: jwt({ role: 'anon', exp: now() - 10 }) })],
      ['a key not valid yet (nbf)', () => ({ apikey: jwt({ role: 'service_role', nbf: now() + 600 }) })],
      [
        'a key whose signature ends in another character that decodes to the same bytes',
        () => ({ apikey: withNonCanonicalEnd(keys.serviceRole) }),
      ],
      ['alg none', () => ({ apikey: `${jwt({ role: 'service_role' }, SECRET, { alg: 'none' }).split('.').slice(0, 2).join('.')}.` })],
      ['an HS512 header', () => ({ apikey: jwt({ role: 'service_role' }, SECRET, { alg: 'HS512' }) })],
      ['an unknown role', () => ({ apikey: jwt({ role: 'postgres' }) })],
      ['a bad bearer token', () => ({ apikey: keys.anon, authorization: 'Bearer abc.def.ghi' })],
      [
        'an expired user token',
        () => ({ apikey: keys.anon, authorization: `Bearer ${jwt({ sub: U1, role: 'authenticated', exp: now() - 1 })}` }),
      ],
      ['a non-bearer authorization', () => ({ apikey: keys.anon, authorization: `Basic ${user1()}` })],
      [
        'a user token not valid yet (nbf)',
        () => ({ apikey: keys.anon, authorization: `Bearer ${jwt({ sub: U1, role: 'authenticated', nbf: now() + 600 })}` }),
      ],
    ])('rejects %s with 401 and a JSON error', async (_name, headers) => {
      const r = await post({ query: '{ __typename }' }, headers() as Record<string, string>);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ errors: [{ message: expect.any(String) }] });
    });

    it('checks expiry on every request, also for a token whose signature it remembers', () => {
      const exp = Math.floor(Date.now() / 1000) + 60;
      const token = jwt({ sub: U1, role: 'authenticated', exp });
      expect(server.project.authenticate(keys.anon, `Bearer ${token}`, (exp - 1) * 1000).sub).toBe(U1);
      expect(() => server.project.authenticate(keys.anon, `Bearer ${token}`, exp * 1000)).toThrow('The key has expired');
      const [head, body, sig] = token.split('.') as [string, string, string];
      const forged = `${head}.${body}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`;
      expect(() => server.project.authenticate(keys.anon, `Bearer ${forged}`, (exp - 1) * 1000)).toThrow(/signature/);
    });

    it('accepts GET for queries, refuses mutations over GET, and answers CORS preflights', async () => {
      const q = encodeURIComponent('{ todoCollection { edges { node { title } } } }');
      const r = await server.request('GET', `/project/graphql/v1?query=${q}`, { headers: { apikey: keys.anon } });
      expect(r.body).toEqual({ data: { todoCollection: { edges: [{ node: { title: 'public' } }] } } });
      const viaGet = (query: string, operationName?: string) => {
        const name = operationName ? `&operationName=${operationName}` : '';
        return server.request('GET', `/project/graphql/v1?query=${encodeURIComponent(query)}${name}`, {
          headers: { apikey: keys.serviceRole },
        });
      };
      const del = 'deleteFromtodoCollection(atMost: 10) { affectedCount }';
      for (const [query, operationName] of [
        [`mutation { ${del} }`, undefined],
        [`# a comment first\nmutation { ${del} }`, undefined],
        [`query q { todoCollection { edges { node { title } } } } mutation m { ${del} }`, 'm'],
      ] as const) {
        expect(await viaGet(query, operationName)).toMatchObject({ status: 405, body: { errors: [{ message: 'Mutations need POST' }] } });
      }
      const chosenQuery = await viaGet(`query q { todoCollection(first: 1) { edges { node { title } } } } mutation m { ${del} }`, 'q');
      expect(chosenQuery.body).toEqual({ data: { todoCollection: { edges: [{ node: { title: 'u1 a' } }] } } });
      expect(await everything()).toEqual(['u1 a', 'u1 b', 'u2 a', 'public']);
      const pre = await server.request('OPTIONS', '/project/graphql/v1');
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-headers')).toMatch(/apikey/);
    });
  });

  describe('hostile input', () => {
    const serviceRole = () => ({ apikey: keys.serviceRole });
    const INJECTIONS = [
      `'; drop table todo; --`,
      `") or 1=1 --`,
      `\\'; select pg_sleep(5); --`,
      `%' or '1'='1`,
      `$1`,
      `'::text); delete from todo; --`,
    ];

    afterEach(async () => {
      expect(await everything()).toEqual(['u1 a', 'u1 b', 'u2 a', 'public']);
    });

    /** Each filter operator as hand-written SQL over a literal, the oracle for what the GraphQL filter must answer. */
    const FILTER_SQL: Record<string, (literal: string) => string> = {
      eq: (v) => `title = ${v}`,
      neq: (v) => `title <> ${v}`,
      like: (v) => `title like ${v}`,
      ilike: (v) => `title ilike ${v}`,
      startsWith: (v) => `starts_with(title, ${v})`,
      regex: (v) => `title ~ ${v}`,
      iregex: (v) => `title ~* ${v}`,
      gt: (v) => `title > ${v}`,
    };
    /** The answer a filter on `condition` must give: the matching ids in primary-key order, or Postgres's own error message. */
    const answerOf = async (condition: string) => {
      try {
        const [result] = await server.project.sql(`select id from todo where ${condition} order by id`);
        return { data: { todoCollection: { edges: result!.rows.map((row) => ({ node: { id: row.id } })) } } };
      } catch (err) {
        return { data: null, errors: [{ message: (err as Error).message }] };
      }
    };

    it.each(INJECTIONS)('treats %s as a plain value in every string argument and filter', async (evil) => {
      for (const [op, sql] of Object.entries(FILTER_SQL)) {
        const r = await post(
          { query: `query($v: String) { todoCollection(filter: {title: {${op}: $v}}) { edges { node { id } } } }`, variables: { v: evil } },
          serviceRole(),
        );
        expect(r.status).toBe(200);
        expect(r.body).toEqual(await answerOf(sql(`$evil$${evil}$evil$`)));
      }
      const inList = await post(
        { query: `query($v: String!) { todoCollection(filter: {title: {in: [$v]}}) { edges { node { id } } } }`, variables: { v: evil } },
        serviceRole(),
      );
      expect(inList.body).toEqual({ data: { todoCollection: { edges: [] } } });
      for (const arg of ['after', 'before']) {
        const cursor = Buffer.from(JSON.stringify([evil])).toString('base64');
        const r = await post(
          { query: `query($c: Cursor) { todoCollection(${arg}: $c) { edges { node { id } } } }`, variables: { c: cursor } },
          serviceRole(),
        );
        expect(r.status).toBe(200);
        expect(r.body.data).toBeNull();
      }
      const node = await post(
        {
          query: `query($n: ID!) { node(nodeId: $n) { nodeId } }`,
          variables: { n: Buffer.from(JSON.stringify(['public', 'todo', evil])).toString('base64') },
        },
        serviceRole(),
      );
      expect(node.status).toBe(200);
      const upd = await post(
        {
          query: `mutation($v: String) { updatetodoCollection(set: {title: $v}, filter: {title: {eq: $v}}, atMost: 10) { affectedCount } }`,
          variables: { v: evil },
        },
        serviceRole(),
      );
      expect(upd.body).toEqual({ data: { updatetodoCollection: { affectedCount: 0 } } });
    });

    it('refuses unknown names in orderBy and filter, and aliases with odd text are only keys', async () => {
      for (const query of [
        `{ todoCollection(orderBy: [{title_desc_drop: AscNullsLast}]) { edges { node { id } } } }`,
        `{ todoCollection(orderBy: [{title: "asc; drop table todo"}]) { edges { node { id } } } }`,
        `{ todoCollection(filter: {"title": {eq: "x"}}) { edges { node { id } } } }`,
        `{ todoCollection(filter: {title_x: {eq: "x"}}) { edges { node { id } } } }`,
        `{ todoCollection(orderBy: [{title: AscNullsLast, id: DescNullsFirst}]) { edges { node { id } } } }`,
      ]) {
        const r = await post({ query }, serviceRole());
        expect(r.status).toBe(200);
        expect(r.body.data).toBeNull();
        expect(r.body.errors.length).toBeGreaterThan(0);
      }
      const aliased = await post({ query: `{ x_1: todoCollection(first: 1) { e: edges { n: node { t: title } } } }` }, serviceRole());
      expect(aliased.body).toEqual({ data: { x_1: { e: [{ n: { t: 'u1 a' } }] } } });
    });

    it('limits depth, width and page size', async () => {
      const ofTypes = (n: number) => `${'ofType { '.repeat(n)}name${' }'.repeat(n)}`;
      const tooDeep = await post({ query: `{ __schema { types { fields { type { ${ofTypes(15)} } } } } }` }, serviceRole());
      expect(tooDeep.body).toEqual({ data: null, errors: [{ message: 'Query is too deep: the limit is 16 levels' }] });
      const deepEnough = await post({ query: `{ __schema { types { fields { type { ${ofTypes(10)} } } } } }` }, serviceRole());
      expect(deepEnough.body.errors).toBeUndefined();
      const wide = `{ ${Array.from({ length: 2500 }, (_, i) => `f${i}: __typename`).join(' ')} }`;
      expect((await post({ query: wide }, serviceRole())).body.errors[0].message).toMatch(/too many fields/);
      await server.project.sql(`create table many(id int primary key); insert into many select generate_series(1, 100)`);
      const big = await post(
        { query: `{ manyCollection(first: 1000000) { edges { node { id } } pageInfo { hasNextPage } } }` },
        serviceRole(),
      );
      expect(big.body.data.manyCollection.edges).toHaveLength(30);
      expect(big.body.data.manyCollection.pageInfo.hasNextPage).toBe(true);
      const negative = await post({ query: `{ manyCollection(first: -1) { edges { node { id } } } }` }, serviceRole());
      expect(negative.body.errors[0].message).toBe('`first` must be an unsigned integer');
      await server.project.sql(`drop table many`);
    });

    it('answers malformed bodies, bad variables and bad queries with clear errors and no 5xx', async () => {
      const raw = (body: string, contentType = 'application/json') =>
        server.request('POST', '/project/graphql/v1', { raw: body, headers: { apikey: keys.anon, 'content-type': contentType } });
      expect(await raw('{"query": ')).toMatchObject({ status: 400, body: { errors: [{ message: 'The request body is not valid JSON' }] } });
      expect(await raw('[1, 2]')).toMatchObject({ status: 400 });
      expect((await raw(JSON.stringify({ query: `{ __typename }`, pad: 'x'.repeat(1_100_000) }))).status).toBe(413);
      const cases: unknown[] = [
        { query: '' },
        { query: 42 },
        { query: '{ todoCollection { edges { node { id } } ' },
        { query: 'query($f: Int) { todoCollection(first: $f) { edges { node { id } } } }', variables: { f: 'ten' } },
        { query: 'query($f: Int) { todoCollection(first: $f) { edges { node { id } } } }', variables: [1] },
        { query: '{ todoCollection(after: "!!!not base64!!!") { edges { node { id } } } }' },
        { query: '{ node(nodeId: "bm90IGpzb24=") { nodeId } }' },
        { query: '{ a } { b }' },
        { query: 'subscription { x }' },
        { query: '{ todoCollection { edges { node { id } } } }', operationName: 'missing' },
      ];
      for (const body of cases) {
        const r = await post(body);
        expect(r.status).toBeLessThan(500);
        expect(r.body.data ?? null).toBeNull();
        expect(r.body.errors[0].message).toEqual(expect.any(String));
        expect(JSON.stringify(r.body)).not.toMatch(/\bat .*\.(ts|js):\d+|select .* from/i);
      }
    });
  });
});
