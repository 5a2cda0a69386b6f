/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk arbitrary JSON answers */
import { PROJECT_DRIVERS, startTestProject, type TestProject } from '@svc/service/testing';

// Behaviour pg_graphql's regression suite checks and its documentation leaves out: how lenient it is with
// variables, which types its schema always has, and which columns it leaves out.

const GARDEN = `
comment on schema public is '@graphql({"inflect_names": true})';
create table bed(id int primary key, crop text, rows int not null);
insert into bed values (1, 'kale', 4), (2, null, 2), (3, 'leek', 6);
create type point2 as (x int, y int);
create table marker(id serial primary key, label text not null, spot point2, tags text[]);
insert into marker(label) values ('gate'), ('well');
create table stamp(id int generated always as identity primary key);
create table only_key(" key" int primary key);
create table plant(id int primary key, bed_id int not null, name text not null);
insert into plant values (1, 1, 'red kale'), (2, 1, 'curly kale'), (3, 3, 'winter leek'), (4, 1, 'black kale');
create table shelf(id int primary key);
create table jar(id int primary key, shelf_id int not null references shelf(id), lid_of int references jar(id));
create table vault(id int primary key);
alter table vault enable row level security;
create table coin(id int primary key, vault_id int not null references vault(id));
create table flag(on_off boolean primary key);
create table reading(value float8 primary key);
create function neighbours(b bed) returns setof plant stable language sql as $$ select * from plant where bed_id = b.id $$;
create function tallest(b bed) returns plant stable language sql as $$ select * from plant where bed_id = b.id order by id desc limit 1 $$;
create function first_plant(b bed) returns setof plant rows 1 stable language sql as $$ select * from plant where bed_id = b.id order by id limit 1 $$;`;

const message = (r: { errors?: { message: string }[] }) => r.errors?.map((e) => e.message);
const ids = (r: any, collection: string) => r.data?.[collection]?.edges.map((e: any) => e.node.id);

describe.each(PROJECT_DRIVERS)('what pg_graphql’s regression suite expects, on %s', (kind) => {
  let p: TestProject;
  beforeAll(async () => {
    p = await startTestProject(kind);
    await p.sql(GARDEN);
  }, 180_000);
  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const gql = async (query: string, variables: Record<string, unknown> = {}): Promise<any> => p.gql(query, variables, p.keys.serviceRole);

  it('takes an orderBy variable whose list allows null items, and skips entries a variable left empty', async () => {
    const byList = `query($order: [BedOrderBy]) { bedCollection(orderBy: $order) { edges { node { id } } } }`;
    expect(ids(await gql(byList, { order: [{ crop: 'DescNullsFirst' }] }), 'bedCollection')).toEqual([2, 3, 1]);
    expect(ids(await gql(byList, { order: [null, { rows: 'AscNullsLast' }] }), 'bedCollection')).toEqual([2, 1, 3]);
    const byDirection = `query($dir: OrderByDirection) { bedCollection(orderBy: [{rows: $dir}]) { edges { node { id } } } }`;
    expect(ids(await gql(byDirection, { dir: 'DescNullsLast' }), 'bedCollection')).toEqual([3, 1, 2]);
    expect(ids(await gql(byDirection), 'bedCollection')).toEqual([1, 2, 3]);
    // A variable of another item type is still refused.
    const wrong = `query($order: [BedFilter]) { bedCollection(orderBy: $order) { edges { node { id } } } }`;
    expect(message(await gql(wrong, { order: [] }))).toEqual(['Invalid input for BedOrderBy type']);
  });

  it('answers hasPreviousPage after a cursor as pg_graphql: only when a row comes before the page', async () => {
    const page = `query($after: Cursor) { bedCollection(first: 1, after: $after) { pageInfo { hasPreviousPage } edges { node { id } } } }`;
    const before = Buffer.from('[0]').toString('base64');
    expect(await gql(page, { after: before })).toEqual({
      data: { bedCollection: { pageInfo: { hasPreviousPage: false }, edges: [{ node: { id: 1 } }] } },
    });
    const one = Buffer.from('[1]').toString('base64');
    expect((await gql(page, { after: one })).data.bedCollection.pageInfo.hasPreviousPage).toBe(true);
    const last = Buffer.from('[3]').toString('base64');
    expect(await gql(page, { after: last })).toEqual({ data: { bedCollection: { pageInfo: { hasPreviousPage: false }, edges: [] } } });
    const back = `query($before: Cursor) { bedCollection(last: 1, before: $before) { pageInfo { hasNextPage } edges { node { id } } } }`;
    expect((await gql(back, { before: Buffer.from('[9]').toString('base64') })).data.bedCollection.pageInfo.hasNextPage).toBe(false);
    expect((await gql(back, { before: Buffer.from('[3]').toString('base64') })).data.bedCollection.pageInfo.hasNextPage).toBe(true);
  });

  it('treats a variable the operation does not define as absent, and ignores one it does not use', async () => {
    expect(
      ids(await gql(`query($unused: Int) { bedCollection(first: $undefinedCount) { edges { node { id } } } }`), 'bedCollection'),
    ).toEqual([1, 2, 3]);
  });

  it('lists nodeId after the columns of a filter, leaves out composite columns, and keeps sequence-filled columns out of inputs', async () => {
    const type = async (name: string) =>
      (await gql(`query($name: String!) { __type(name: $name) { fields { name } inputFields { name } } }`, { name })).data.__type;
    const names = (list: { name: string }[] | null) => list?.map((f) => f.name);
    expect(names((await type('MarkerFilter')).inputFields)).toEqual(['id', 'label', 'tags', 'nodeId', 'and', 'or', 'not']);
    expect(names((await type('Marker')).fields)).toEqual(['nodeId', 'id', 'label', 'tags']);
    expect(names((await type('MarkerInsertInput')).inputFields)).toEqual(['label', 'tags']);
    expect(names((await type('MarkerUpdateInput')).inputFields)).toEqual(['label', 'tags']);
    expect(names((await type('MarkerOrderBy')).inputFields)).toEqual(['id', 'label']);
    expect(await type('StampInsertInput')).toBeNull();
    expect(message(await gql(`mutation { insertIntoMarkerCollection(objects: [{id: 9, label: "x"}]) { affectedCount } }`))).toEqual([
      'Input for type MarkerInsertInput contains extra keys ["id"]',
    ]);
    expect(await gql(`mutation { insertIntoMarkerCollection(objects: [{label: "stile"}]) { records { id label } } }`)).toEqual({
      data: { insertIntoMarkerCollection: { records: [{ id: 3, label: 'stile' }] } },
    });
  });

  it('serves a table whose only column has no GraphQL name, without an orderBy argument', async () => {
    expect((await gql(`{ __type(name: "OnlyKey") { fields { name } } }`)).data.__type.fields).toEqual([{ name: 'nodeId' }]);
    const args = (await gql(`{ __schema { queryType { fields { name args { name } } } } }`)).data.__schema.queryType.fields;
    expect(args.find((f: any) => f.name === 'onlyKeyCollection').args.map((a: any) => a.name)).toEqual([
      'first',
      'last',
      'before',
      'after',
      'offset',
      'filter',
    ]);
  });

  it('has the filter types of every scalar and describes @include and @skip as pg_graphql does', async () => {
    const r = await gql(`{ __schema { types { name } directives { name description } } }`);
    const types = r.data.__schema.types.map((x: any) => x.name);
    for (const name of [
      'BigFloatListFilter',
      'DateFilter',
      'TimeListFilter',
      'UUIDListFilter',
      'OpaqueFilter',
      'FilterIs',
      'IDFilter',
      'PageInfo',
    ])
      expect(types).toContain(name);
    expect(types).not.toContain('OpaqueListFilter');
    expect(types).not.toContain('JSONFilter');
    expect(r.data.__schema.directives).toEqual([
      { name: 'include', description: 'This field or fragment will be included only when the `if` argument is true.' },
      { name: 'skip', description: 'This field or fragment will be skipped when the `if` argument is true.' },
    ]);
  });

  it('serves a function from a row to rows of another table as a relation: a connection, or one row or null', async () => {
    const r = await gql(`{ bedCollection { edges { node { id
      neighbours(first: 2, filter: {name: {like: "%e%"}}, orderBy: [{name: AscNullsLast}]) { pageInfo { hasNextPage } edges { node { name } } }
      tallest { id name } firstPlant { id } } } } }`);
    expect(r.data.bedCollection.edges.map((e: any) => e.node)).toEqual([
      {
        id: 1,
        neighbours: { pageInfo: { hasNextPage: true }, edges: [{ node: { name: 'black kale' } }, { node: { name: 'curly kale' } }] },
        tallest: { id: 4, name: 'black kale' },
        firstPlant: { id: 1 },
      },
      { id: 2, neighbours: { pageInfo: { hasNextPage: false }, edges: [] }, tallest: null, firstPlant: null },
      {
        id: 3,
        neighbours: { pageInfo: { hasNextPage: false }, edges: [{ node: { name: 'winter leek' } }] },
        tallest: { id: 3, name: 'winter leek' },
        firstPlant: { id: 3 },
      },
    ]);
    const fields = (await gql(`{ __type(name: "Bed") { fields { name type { kind name } } } }`)).data.__type.fields;
    expect(fields.filter((f: any) => ['neighbours', 'tallest', 'firstPlant'].includes(f.name))).toEqual([
      { name: 'neighbours', type: { kind: 'OBJECT', name: 'PlantConnection' } },
      { name: 'tallest', type: { kind: 'OBJECT', name: 'Plant' } },
      { name: 'firstPlant', type: { kind: 'OBJECT', name: 'Plant' } },
    ]);
  });

  it('types a to-one relation non-null when a not-null foreign key column points at a table without RLS, and connections nullable', async () => {
    const typeOf = async (typeName: string, field: string) => {
      const r = await gql(`query($name: String!) { __type(name: $name) { fields { name type { kind name ofType { name } } } } }`, {
        name: typeName,
      });
      return r.data.__type.fields.find((f: any) => f.name === field).type;
    };
    expect(await typeOf('Jar', 'shelf')).toEqual({ kind: 'NON_NULL', name: null, ofType: { name: 'Shelf' } });
    expect(await typeOf('Jar', 'jar')).toEqual({ kind: 'OBJECT', name: 'Jar', ofType: null });
    expect(await typeOf('Coin', 'vault')).toEqual({ kind: 'OBJECT', name: 'Vault', ofType: null });
    expect(await typeOf('Shelf', 'jarCollection')).toEqual({ kind: 'OBJECT', name: 'JarConnection', ofType: null });
  });

  it('ends every cursor with the primary key, even when orderBy names it, and takes the last of an input field given twice', async () => {
    const r = await gql(
      `{ bedCollection(first: 1, orderBy: [{id: DescNullsLast}], filter: {rows: {gt: 1}, rows: {gt: 5}}) { edges { cursor node { id } } } }`,
    );
    expect(r.data.bedCollection.edges).toEqual([{ cursor: Buffer.from('[3, 3]').toString('base64'), node: { id: 3 } }]);
    const next = await gql(
      `query($after: Cursor) { bedCollection(first: 1, orderBy: [{id: DescNullsLast}], after: $after) { edges { node { id } } } }`,
      {
        after: r.data.bedCollection.edges[0].cursor,
      },
    );
    expect(ids(next, 'bedCollection')).toEqual([2]);
  });

  it('filters out every row when an operator is given null, as SQL compares with null, but not for is', async () => {
    expect(ids(await gql(`{ bedCollection(filter: {rows: {lt: null}}) { edges { node { id } } } }`), 'bedCollection')).toEqual([]);
    expect(ids(await gql(`{ bedCollection(filter: {crop: {in: null}}) { edges { node { id } } } }`), 'bedCollection')).toEqual([]);
    const byVariable = `query($v: Int) { bedCollection(filter: {rows: {eq: $v}}) { edges { node { id } } } }`;
    expect(ids(await gql(byVariable, { v: null }), 'bedCollection')).toEqual([]);
    expect(ids(await gql(byVariable), 'bedCollection')).toEqual([1, 2, 3]);
  });

  it('offers ByPk lookups only for keys of integer, text and uuid types', async () => {
    const fields = (await gql(`{ __type(name: "Query") { fields { name } } }`)).data.__type.fields.map((f: any) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['bedByPk', 'flagCollection', 'readingCollection']));
    expect(fields).not.toContain('flagByPk');
    expect(fields).not.toContain('readingByPk');
  });
});
