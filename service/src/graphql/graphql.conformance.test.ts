/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk arbitrary JSON answers */
import { PROJECT_DRIVERS, startTestProject, type TestProject } from '@svc/service/testing';

// Each case follows an example of pg_graphql's docs (api.md, configuration.md, views.md, functions.md,
// computed_fields.md): its schema, seed rows, query and the exact JSON the docs show.

const BLOG = `
create table "Blog"(
  id serial primary key,
  name varchar(255) not null,
  description varchar(255),
  tags text[],
  "createdAt" timestamp not null default '2023-07-24 04:01:09.882781'
);
insert into "Blog"(name, description, tags) values
  ('A: Blog 1', 'a desc1', '{tech,innovation}'),
  ('A: Blog 2', 'a desc2', '{tech,innovation,entrepreneurship}'),
  ('A: Blog 3', 'a desc3', '{innovation,entrepreneurship}'),
  ('B: Blog 3', 'b desc1', '{travel}');`;

const node = (id: number, name: string, description: string) => ({
  node: { id, name, description, createdAt: '2023-07-24T04:01:09.882781' },
  cursor: Buffer.from(`[${id}]`).toString('base64'),
});
const ROWS = [
  node(1, 'A: Blog 1', 'a desc1'),
  node(2, 'A: Blog 2', 'a desc2'),
  node(3, 'A: Blog 3', 'a desc3'),
  node(4, 'B: Blog 3', 'b desc1'),
];
const SELECT = `edges { cursor node { id name description createdAt } }`;

describe.each(PROJECT_DRIVERS)('pg_graphql conformance on %s', (kind) => {
  let p: TestProject;
  beforeAll(async () => {
    // 2 s rather than the default 5 s: the statement-timeout case below waits it out on each driver.
    p = await startTestProject(kind, { statementTimeoutMs: 2_000 });
  }, 180_000);
  afterAll(async () => {
    await p?.close();
  }, 60_000);
  beforeEach(async () => {
    await p.reset();
  });

  describe('collections', () => {
    beforeEach(async () => {
      await p.sql(BLOG);
    });

    it('pages forward with first/after and reports pageInfo', async () => {
      const q = `query($after: Cursor) { blogCollection(first: 2, after: $after) {
        pageInfo { startCursor endCursor hasPreviousPage hasNextPage } edges { node { id } cursor } } }`;
      expect(await p.gql(q, { after: null })).toEqual({
        data: {
          blogCollection: {
            edges: [
              { node: { id: 1 }, cursor: 'WzFd' },
              { node: { id: 2 }, cursor: 'WzJd' },
            ],
            pageInfo: { startCursor: 'WzFd', endCursor: 'WzJd', hasNextPage: true, hasPreviousPage: false },
          },
        },
      });
      expect(await p.gql(q, { after: 'WzJd' })).toEqual({
        data: {
          blogCollection: {
            edges: [
              { node: { id: 3 }, cursor: 'WzNd' },
              { node: { id: 4 }, cursor: 'WzRd' },
            ],
            pageInfo: { startCursor: 'WzNd', endCursor: 'WzRd', hasNextPage: false, hasPreviousPage: true },
          },
        },
      });
    });

    it('pages backward with last/before', async () => {
      const r = await p.gql(
        `{ blogCollection(last: 2, before: "WzRd") { edges { node { id } } pageInfo { hasNextPage hasPreviousPage } } }`,
      );
      expect(r).toEqual({
        data: {
          blogCollection: { edges: [{ node: { id: 2 } }, { node: { id: 3 } }], pageInfo: { hasNextPage: true, hasPreviousPage: true } },
        },
      });
    });

    it('pages with first/offset', async () => {
      const r = await p.gql(
        `{ blogCollection(first: 2, offset: 2) { edges { node { id } cursor } pageInfo { startCursor endCursor hasNextPage hasPreviousPage } } }`,
      );
      expect(r).toEqual({
        data: {
          blogCollection: {
            edges: [
              { node: { id: 3 }, cursor: 'WzNd' },
              { node: { id: 4 }, cursor: 'WzRd' },
            ],
            pageInfo: { startCursor: 'WzNd', endCursor: 'WzRd', hasNextPage: false, hasPreviousPage: true },
          },
        },
      });
    });

    it.each([
      ['simple', `{id: {lt: 3}}`, [0, 1]],
      ['and', `{and: [{id: {eq: 1}}, {name: {eq: "A: Blog 1"}}]}`, [0]],
      ['or', `{or: [{id: {eq: 1}}, {name: {eq: "A: Blog 2"}}]}`, [0, 1]],
      ['not', `{not: {id: {eq: 1}}}`, [1, 2, 3]],
      ['nested', `{or: [{id: {eq: 1}}, {id: {eq: 2}}, {and: [{id: {eq: 3}, not: {name: {eq: "A: Blog 2"}}}]}]}`, [0, 1, 2]],
      ['empty', `{and: [], or: [], not: {}}`, [0, 1, 2, 3]],
      ['implicit and', `{not: {id: {eq: 1}, name: {eq: "A: Blog 1"}}}`, [1, 2, 3]],
      ['or in and clothing', `{or: {id: {eq: 1}, name: {eq: "A: Blog 2"}}}`, []],
      ['in', `{id: {in: [2, 4]}}`, [1, 3]],
      ['is NULL', `{description: {is: NULL}}`, []],
      ['is NOT_NULL', `{description: {is: NOT_NULL}}`, [0, 1, 2, 3]],
      ['neq/gte/lte', `{id: {neq: 2, gte: 1, lte: 3}}`, [0, 2]],
      ['gt', `{id: {gt: 3}}`, [3]],
      ['like', `{name: {like: "A:%3"}}`, [2]],
      ['ilike', `{name: {ilike: "b:%"}}`, [3]],
      ['startsWith (no wildcards)', `{name: {startsWith: "A: Blog"}}`, [0, 1, 2]],
      ['startsWith escapes %', `{name: {startsWith: "%"}}`, []],
      ['regex', `{name: {regex: "^B"}}`, [3]],
      ['iregex', `{name: {iregex: "^b"}}`, [3]],
    ])('filters: %s', async (_name, filter, expected) => {
      const r = await p.gql(`{ blogCollection(filter: ${filter}) { ${SELECT} } }`);
      expect(r).toEqual({ data: { blogCollection: { edges: expected.map((i) => ROWS[i]) } } });
    });

    it.each([
      ['contains', `["tech", "innovation"]`, [1, 2]],
      ['contains', `"tech"`, [1, 2]],
      ['containedBy', `["entrepreneurship", "innovation", "tech"]`, [1, 2, 3]],
      ['containedBy', `"travel"`, [4]],
      ['overlaps', `["tech", "travel"]`, [1, 2, 4]],
    ])('array filter %s %s', async (op, value, ids) => {
      const r = await p.gql(`{ blogCollection(filter: {tags: {${op}: ${value}}}) { edges { node { id } } } }`);
      expect(r).toEqual({ data: { blogCollection: { edges: ids.map((id) => ({ node: { id } })) } } });
    });

    it('orders by orderBy', async () => {
      const r = await p.gql(`{ blogCollection(orderBy: [{id: DescNullsLast}]) { edges { node { id } } } }`);
      expect(r).toEqual({ data: { blogCollection: { edges: [4, 3, 2, 1].map((id) => ({ node: { id } })) } } });
    });

    it('returns array columns as lists', async () => {
      const r = await p.gql(`{ blogCollection(first: 1) { edges { node { tags } } } }`);
      expect(r).toEqual({ data: { blogCollection: { edges: [{ node: { tags: ['tech', 'innovation'] } }] } } });
    });

    it('fetches a record by nodeId through the Node interface', async () => {
      const r = await p.gql(`{ node(nodeId: "WyJwdWJsaWMiLCAiQmxvZyIsIDFd") { nodeId __typename ... on Blog { name description } } }`);
      expect(r).toEqual({
        data: { node: { nodeId: 'WyJwdWJsaWMiLCAiQmxvZyIsIDFd', __typename: 'Blog', name: 'A: Blog 1', description: 'a desc1' } },
      });
      const all = await p.gql(`{ blogCollection(first: 1) { edges { node { nodeId } } } }`);
      expect(all).toEqual({ data: { blogCollection: { edges: [{ node: { nodeId: 'WyJwdWJsaWMiLCAiQmxvZyIsIDFd' } }] } } });
      const filtered = await p.gql(`{ blogCollection(filter: {nodeId: {eq: "WyJwdWJsaWMiLCAiQmxvZyIsIDJd"}}) { edges { node { id } } } }`);
      expect(filtered).toEqual({ data: { blogCollection: { edges: [{ node: { id: 2 } }] } } });
    });

    it('caps first at max_rows (default 30, @graphql max_rows on the table)', async () => {
      await p.sql(`insert into "Blog"(name) select 'more ' || i from generate_series(1, 40) i`);
      const count = async () =>
        ((await p.gql(`{ blogCollection(first: 1000) { edges { node { id } } } }`)).data as any).blogCollection.edges.length;
      expect(await count()).toBe(30);
      await p.sql(`comment on table "Blog" is e'@graphql({"max_rows": 5})'`);
      expect(await count()).toBe(5);
    });

    it('offers totalCount only when enabled by a comment directive', async () => {
      const q = `{ blogCollection(first: 1, filter: {id: {gt: 1}}) { totalCount } }`;
      expect((await p.gql(q)).errors?.[0]?.message).toBe('unknown field in connection');
      await p.sql(`comment on table "Blog" is e'@graphql({"totalCount": {"enabled": true}})'`);
      expect(await p.gql(q)).toEqual({ data: { blogCollection: { totalCount: 3 } } });
    });

    it('offers aggregate (count, sum, avg, min, max over the filter) only when enabled by a comment directive', async () => {
      await p.sql(`alter table "Blog" add column rating int; alter table "Blog" add column visits bigint;
        update "Blog" set rating = id + 2, visits = id * 100;`);
      expect((await p.gql(`{ blogCollection { aggregate { count } } }`)).errors?.[0]?.message).toBe(
        'enable the aggregate directive to use aggregates',
      );
      await p.sql(`comment on table "Blog" is e'@graphql({"aggregate": {"enabled": true}})'`);
      const r = await p.gql(`{ blogCollection(first: 1, filter: {rating: {gt: 3}}) {
        aggregate { count sum { rating visits } avg { rating } min { createdAt name } max { rating } } } }`);
      expect(r).toEqual({
        data: {
          blogCollection: {
            aggregate: {
              count: 3,
              sum: { rating: 15, visits: 900 },
              avg: { rating: 5 },
              min: { createdAt: '2023-07-24T04:01:09.882781', name: 'A: Blog 2' },
              max: { rating: 6 },
            },
          },
        },
      });
    });

    it('keeps keyset pagination exact under ties, forward and backward', async () => {
      await p.sql(
        `insert into "Blog"(name, description) select 'dup', case when i % 3 = 0 then null else 'd' || (i % 2) end from generate_series(1, 23) i`,
      );
      const ids = async (dir: string, forward: boolean) => {
        const seen: number[] = [];
        let cursor: string | null = null;
        for (let page = 0; page < 50; page++) {
          const args: string = forward ? `first: 4, after: $c` : `last: 4, before: $c`;
          const r = await p.gql(
            `query($c: Cursor) { blogCollection(${args}, orderBy: [{description: ${dir}}, {name: AscNullsLast}]) {
               edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
            { c: cursor },
          );
          const conn = (r.data as any).blogCollection;
          const pageIds = conn.edges.map((e: any) => e.node.id);
          if (forward) seen.push(...pageIds);
          else seen.unshift(...pageIds);
          const more = forward ? conn.pageInfo.hasNextPage : conn.pageInfo.hasPreviousPage;
          if (!more) return seen;
          cursor = forward ? conn.pageInfo.endCursor : conn.pageInfo.startCursor;
        }
        throw new Error('did not finish paging');
      };
      for (const dir of ['AscNullsFirst', 'AscNullsLast', 'DescNullsFirst', 'DescNullsLast']) {
        const all = (
          await p.gql(`{ blogCollection(first: 30, orderBy: [{description: ${dir}}, {name: AscNullsLast}]) { edges { node { id } } } }`)
        ).data as any;
        const expected = all.blogCollection.edges.map((e: any) => e.node.id);
        expect(expected).toHaveLength(27);
        expect(await ids(dir, true)).toEqual(expected);
        expect(await ids(dir, false)).toEqual(expected);
      }
    });
  });

  describe('mutations', () => {
    beforeEach(async () => {
      await p.sql(`create table "Blog"(id serial primary key, name varchar(255) not null, description varchar(255),
        "createdAt" timestamp not null default now(), "updatedAt" timestamp)`);
    });

    it('inserts, updates and deletes, returning affectedCount and records', async () => {
      expect(
        await p.gql(`mutation { insertIntoBlogCollection(objects: [{name: "foo"}, {name: "bar"}]) { affectedCount records { id name } } }`),
      ).toEqual({
        data: {
          insertIntoBlogCollection: {
            affectedCount: 2,
            records: [
              { id: 1, name: 'foo' },
              { id: 2, name: 'bar' },
            ],
          },
        },
      });
      expect(
        await p.gql(`mutation { updateBlogCollection(set: {name: "baz"}, filter: {id: {eq: 1}}) { affectedCount records { id name } } }`),
      ).toEqual({
        data: { updateBlogCollection: { affectedCount: 1, records: [{ id: 1, name: 'baz' }] } },
      });
      expect(await p.gql(`mutation { deleteFromBlogCollection(filter: {id: {eq: 1}}) { affectedCount records { id name } } }`)).toEqual({
        data: { deleteFromBlogCollection: { affectedCount: 1, records: [{ id: 1, name: 'baz' }] } },
      });
    });

    it('enforces atMost in the same transaction: exceeding it changes nothing', async () => {
      await p.gql(`mutation { insertIntoBlogCollection(objects: [{name: "a"}, {name: "b"}, {name: "c"}]) { affectedCount } }`);
      expect(await p.gql(`mutation { updateBlogCollection(set: {name: "x"}, filter: {id: {gt: 1}}) { affectedCount } }`)).toEqual({
        data: null,
        errors: [{ message: 'update impacts too many records' }],
      });
      expect(await p.gql(`mutation { deleteFromBlogCollection(filter: {id: {gt: 0}}, atMost: 2) { affectedCount } }`)).toEqual({
        data: null,
        errors: [{ message: 'delete impacts too many records' }],
      });
      expect(await p.gql(`{ blogCollection { edges { node { name } } } }`)).toEqual({
        data: { blogCollection: { edges: ['a', 'b', 'c'].map((name) => ({ node: { name } })) } },
      });
      expect(await p.gql(`mutation { deleteFromBlogCollection(filter: {id: {gt: 1}}, atMost: 2) { affectedCount } }`)).toEqual({
        data: { deleteFromBlogCollection: { affectedCount: 2 } },
      });
    });

    it('rolls back every mutation of a request when one fails', async () => {
      const r = await p.gql(`mutation { a: insertIntoBlogCollection(objects: [{name: "kept?"}]) { affectedCount }
        b: updateBlogCollection(set: {name: "y"}, filter: {id: {gt: 0}}, atMost: 0) { affectedCount } }`);
      expect(r).toEqual({ data: null, errors: [{ message: 'update impacts too many records' }] });
      expect(await p.gql(`{ blogCollection { edges { node { id } } } }`)).toEqual({ data: { blogCollection: { edges: [] } } });
    });
  });

  describe('relationships', () => {
    beforeEach(async () => {
      await p.sql(`create table "Blog"(id serial primary key, name varchar(255) not null);
        create table "BlogPost"(id serial primary key, "blogId" integer not null references "Blog"(id), title varchar(255) not null, body varchar(10000));
        insert into "Blog"(name) values ('pg_graphql blog');
        insert into "BlogPost"("blogId", title) values (1, 'fIr3t p0sT'), (1, 'graphql with postgres');`);
    });

    it('one-to-many as a collection with its own arguments', async () => {
      const r = await p.gql(`{ blogCollection { edges { node { name blogPostCollection { edges { node { id title } } } } } } }`);
      expect(r).toEqual({
        data: {
          blogCollection: {
            edges: [
              {
                node: {
                  name: 'pg_graphql blog',
                  blogPostCollection: {
                    edges: [{ node: { id: 1, title: 'fIr3t p0sT' } }, { node: { id: 2, title: 'graphql with postgres' } }],
                  },
                },
              },
            ],
          },
        },
      });
      const nested = await p.gql(
        `{ blogCollection { edges { node { blogPostCollection(last: 1, filter: {title: {startsWith: "fIr"}}) { edges { node { id } } } } } } }`,
      );
      expect(nested).toEqual({ data: { blogCollection: { edges: [{ node: { blogPostCollection: { edges: [{ node: { id: 1 } }] } } }] } } });
    });

    it('many-to-one as a single object', async () => {
      const r = await p.gql(`{ blogPostCollection { edges { node { title blog { name } } } } }`);
      expect(r).toEqual({
        data: {
          blogPostCollection: {
            edges: [
              { node: { title: 'fIr3t p0sT', blog: { name: 'pg_graphql blog' } } },
              { node: { title: 'graphql with postgres', blog: { name: 'pg_graphql blog' } } },
            ],
          },
        },
      });
    });

    it('renames relationships with local_name and foreign_name', async () => {
      const fk = ((await p.project.sql(`select conname from pg_constraint where contype = 'f'`))[0]!.rows[0] as { conname: string })
        .conname;
      await p.sql(`comment on constraint "${fk}" on "BlogPost" is e'@graphql({"foreign_name": "author", "local_name": "posts"})'`);
      const r = await p.gql(`{ blogCollection { edges { node { posts { edges { node { author { name } } } } } } } }`);
      expect(r).toEqual({
        data: {
          blogCollection: {
            edges: [
              {
                node: {
                  posts: { edges: [{ node: { author: { name: 'pg_graphql blog' } } }, { node: { author: { name: 'pg_graphql blog' } } }] },
                },
              },
            ],
          },
        },
      });
    });
  });

  it('fetches a record by primary key with <table>ByPk, composite keys included', async () => {
    await p.sql(`comment on schema public is e'@graphql({"inflect_names": true})';
      create table item(item_id int, product_id int, quantity int, price numeric(10,2), primary key(item_id, product_id));
      insert into item values (1, 2, 1, 24.99);`);
    expect(await p.gql(`{ itemByPk(itemId: 1, productId: 2) { itemId productId quantity price } }`)).toEqual({
      data: { itemByPk: { itemId: 1, productId: 2, quantity: 1, price: '24.99' } },
    });
    expect(await p.gql(`{ itemByPk(itemId: 9, productId: 2) { itemId } }`)).toEqual({ data: { itemByPk: null } });
    expect((await p.gql(`{ itemByPk(itemId: 1) { itemId } }`)).errors?.[0]?.message).toBe('Missing primary key column(s): product_id');
  });

  it('one-to-one with inflected names', async () => {
    await p.sql(`comment on schema public is e'@graphql({"inflect_names": true})';
      create table email_address(id serial primary key, address text unique not null);
      create table employee(id serial primary key, name text not null, email_address_id int unique references email_address(id));
      insert into email_address(address) values ('foo@bar.com');
      insert into employee(name, email_address_id) values ('Foo Barington', 1);`);
    const r = await p.gql(`{ employeeCollection { edges { node { name emailAddressId emailAddress { address employee { name } } } } } }`);
    expect(r).toEqual({
      data: {
        employeeCollection: {
          edges: [
            {
              node: {
                name: 'Foo Barington',
                emailAddressId: 1,
                emailAddress: { address: 'foo@bar.com', employee: { name: 'Foo Barington' } },
              },
            },
          ],
        },
      },
    });
    const m = await p.gql(`mutation { insertIntoEmployeeCollection(objects: [{name: "B"}]) { records { name emailAddressId } } }`);
    expect(m).toEqual({ data: { insertIntoEmployeeCollection: { records: [{ name: 'B', emailAddressId: null }] } } });
  });

  it('maps scalars as pg_graphql does (BigInt, BigFloat, JSON as strings; UUID, Date, Time, Datetime, enums, Opaque)', async () => {
    await p.sql(`create type mood as enum ('happy', 'sad', 'not-ok');
      comment on type mood is e'@graphql({"mappings": {"not-ok": "NOT_OK"}})';
      create table "User"(id bigserial primary key, config jsonb, amount numeric(10,2), uid uuid, day date, at time, ts timestamptz,
        mood mood, flag boolean, ratio float8, spot point, big bigint[]);
      insert into "User"(config, amount, uid, day, at, ts, mood, flag, ratio, spot, big)
      values (jsonb_build_object('palette', 'dark-mode'), 24.99, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-02-29', '13:14:15',
        '2024-01-02 03:04:05+00', 'not-ok', true, 0.5, '(1,2)', '{1,9007199254740993}');`);
    await p.sql(`set timezone = 'UTC'`);
    const r = await p.gql(`{ userCollection { edges { node { id config amount uid day at mood flag ratio spot big } } } }`);
    expect(r).toEqual({
      data: {
        userCollection: {
          edges: [
            {
              node: {
                id: '1',
                config: '{"palette": "dark-mode"}',
                amount: '24.99',
                uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
                day: '2024-02-29',
                at: '13:14:15',
                mood: 'NOT_OK',
                flag: true,
                ratio: 0.5,
                spot: '(1,2)',
                big: ['1', '9007199254740993'],
              },
            },
          ],
        },
      },
    });
    const f = await p.gql(`{ userCollection(filter: {mood: {eq: NOT_OK}, id: {eq: "1"}, amount: {gt: "20"}}) { edges { node { id } } } }`);
    expect(f).toEqual({ data: { userCollection: { edges: [{ node: { id: '1' } }] } } });
    const ins = await p.gql(
      `mutation { insertIntoUserCollection(objects: [{config: "{\\"a\\": [1]}", mood: happy, big: ["5"]}]) { records { id config mood big } } }`,
    );
    expect(ins).toEqual({
      data: { insertIntoUserCollection: { records: [{ id: '2', config: '{"a": [1]}', mood: 'happy', big: ['5'] }] } },
    });
  });

  it('renames tables and columns with the name directive and hides tables without a primary key', async () => {
    await p.sql(`create table account(id serial primary key, email text);
      comment on table account is e'@graphql({"name": "AccountHolder"})';
      comment on column account.email is e'@graphql({"name": "emailAddress", "description": "Where we write"})';
      create table no_pk(id int);
      insert into account(email) values ('a@b.c');`);
    expect(await p.gql(`{ accountHolderCollection { edges { node { __typename emailAddress } } } }`)).toEqual({
      data: { accountHolderCollection: { edges: [{ node: { __typename: 'AccountHolder', emailAddress: 'a@b.c' } }] } },
    });
    const types = await p.gql(`{ __type(name: "AccountHolder") { fields { name description } } } `);
    expect((types.data as any).__type.fields).toContainEqual({ name: 'emailAddress', description: 'Where we write' });
    expect((await p.gql(`{ no_pkCollection { edges { node { id } } } }`)).errors?.[0]?.message).toMatch(
      /Unknown field "no_pkCollection" on type Query/,
    );
  });

  it('serves views with primary_key_columns and foreign_keys directives', async () => {
    await p.sql(`create table account(id serial primary key, email text not null);
      create table post(id serial primary key, account_id int not null references account(id), title text not null);
      insert into account(email) values ('x@y.z'); insert into post(account_id, title) values (1, 'hello');
      create view account_view as select id, email from account;
      comment on view account_view is e'@graphql({"primary_key_columns": ["id"]})';
      create view post_view as select id, account_id, title from post;
      comment on view post_view is e'@graphql({"primary_key_columns": ["id"], "foreign_keys": [{"local_name": "posts", "local_columns": ["account_id"], "foreign_name": "account", "foreign_table": "account_view", "foreign_columns": ["id"]}]})';`);
    const r = await p.gql(`{ post_viewCollection { edges { node { title account { email posts { edges { node { id } } } } } } } }`);
    expect(r).toEqual({
      data: {
        post_viewCollection: {
          edges: [{ node: { title: 'hello', account: { email: 'x@y.z', posts: { edges: [{ node: { id: 1 } }] } } } }],
        },
      },
    });
  });

  it('exposes stable functions as queries, volatile ones as mutations, and computed fields', async () => {
    await p.sql(`create table account(id serial primary key, first_name text not null, last_name text not null);
      insert into account(first_name, last_name) values ('Ada', 'Lovelace'), ('Alan', 'Turing');
      create function "addNums"(a int, b int) returns int immutable language sql as $$ select a + b $$;
      create function bump(step int) returns int volatile language sql as $$ update account set id = id where false; select step + 1 $$;
      create function _full_name(rec account) returns text stable language sql as $$ select rec.first_name || ' ' || rec.last_name $$;
      create function accounts_named(prefix text) returns setof account stable language sql as $$ select * from account where first_name like prefix || '%' $$;`);
    expect(await p.gql(`{ addNums(a: 2, b: 3) }`)).toEqual({ data: { addNums: 5 } });
    expect(await p.gql(`mutation { bump(step: 41) }`)).toEqual({ data: { bump: 42 } });
    expect(await p.gql(`{ accountCollection { edges { node { full_name } } } }`)).toEqual({
      data: { accountCollection: { edges: [{ node: { full_name: 'Ada Lovelace' } }, { node: { full_name: 'Alan Turing' } }] } },
    });
    expect(await p.gql(`{ accounts_named(prefix: "Al") { edges { node { last_name } } } }`)).toEqual({
      data: { accounts_named: { edges: [{ node: { last_name: 'Turing' } }] } },
    });
  });

  it('answers introspection (GraphiQL) and honours introspection: false', async () => {
    await p.sql(`create table t(id int primary key)`);
    const r = await p.gql(`{ __schema { queryType { fields { name } } mutationType { fields { name } } } }`);
    expect(r).toEqual({
      data: {
        __schema: {
          queryType: { fields: [{ name: 'node' }, { name: 'tByPk' }, { name: 'tCollection' }] },
          mutationType: { fields: [{ name: 'deleteFromtCollection' }, { name: 'insertIntotCollection' }, { name: 'updatetCollection' }] },
        },
      },
    });
    await p.sql(`comment on schema public is e'@graphql({"introspection": false})'`);
    expect(await p.gql(`{ __schema { types { name } } }`)).toEqual({
      data: null,
      errors: [{ message: 'Unknown field "__schema" on type Query' }],
    });
  });

  it('cancels a request whose statement runs past the statement timeout', async () => {
    await p.sql(`create function slow() returns int stable language sql as $$ select 1 from pg_sleep(30) $$`);
    expect(await p.gql(`{ slow }`)).toEqual({ data: null, errors: [{ message: 'canceling statement due to statement timeout' }] });
  }, 40_000);

  it('quotes table and column names that contain double quotes, renamed by comment directives', async () => {
    await p.sql(`create table "we""ird"(id int primary key, "co""l" text);
      comment on table "we""ird" is e'@graphql({"name": "Weird"})';
      comment on column "we""ird"."co""l" is e'@graphql({"name": "col"})';
      insert into "we""ird" values (1, 'x'), (2, 'y');`);
    expect(
      await p.gql(`{ weirdCollection(filter: {col: {eq: "y"}}, orderBy: [{col: DescNullsLast}]) { edges { node { id col } } } }`),
    ).toEqual({
      data: { weirdCollection: { edges: [{ node: { id: 2, col: 'y' } }] } },
    });
    expect(await p.gql(`mutation { insertIntoWeirdCollection(objects: [{id: 3, col: "z"}]) { records { col } } }`)).toEqual({
      data: { insertIntoWeirdCollection: { records: [{ col: 'z' }] } },
    });
  });

  it('sees a table created by SQL on the very next request, and a dropped one disappears', async () => {
    expect((await p.gql(`{ fresh_tableCollection { edges { node { id } } } }`)).errors?.[0]?.message).toBe(
      'Unknown field "fresh_tableCollection" on type Query',
    );
    await p.sql(`create table fresh_table(id int primary key); insert into fresh_table values (7)`);
    expect(await p.gql(`{ fresh_tableCollection { edges { node { id } } } }`)).toEqual({
      data: { fresh_tableCollection: { edges: [{ node: { id: 7 } }] } },
    });
    await p.sql(`alter table fresh_table add column label text default 'x'`);
    expect(await p.gql(`{ fresh_tableCollection { edges { node { label } } } }`)).toEqual({
      data: { fresh_tableCollection: { edges: [{ node: { label: 'x' } }] } },
    });
    await p.sql(`drop table fresh_table`);
    expect((await p.gql(`{ fresh_tableCollection { edges { node { id } } } }`)).errors?.[0]?.message).toBe(
      'Unknown field "fresh_tableCollection" on type Query',
    );
  });
});
