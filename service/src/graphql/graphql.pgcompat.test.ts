/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk arbitrary JSON answers */
import { PROJECT_DRIVERS, startTestProject, type TestProject } from '@svc/service/testing';

// Behaviour a client written against pg_graphql relies on beyond its documentation's examples: the words of its
// errors, the order of its introspection, enum values written as strings, and computed fields of any volatility.

const LAMPS = `
comment on schema public is '@graphql({"inflect_names": true})';
create type lamp_colour as enum ('warm', 'cold');
create table room(id int primary key, label text not null);
create table lamp(
  id int primary key,
  room_id int not null references room(id),
  watts int not null,
  colour lamp_colour not null default 'warm'
);
create table socket(room_id int not null, position int not null, primary key (room_id, position));
insert into room values (1, 'hall'), (2, 'attic');
insert into lamp values (1, 1, 40, 'warm'), (2, 1, 60, 'cold'), (3, 2, 25, 'cold');
create function lamp_summary(l lamp) returns text language sql as $$ select l.watts || 'W ' || l.colour $$;
create table fixture(id int primary key, price numeric(8, 2), lumens bigint);
comment on table fixture is e'@graphql({"aggregate": {"enabled": true}})';
insert into fixture values (1, 19.50, 800), (2, 5.25, 4000000000), (3, null, null);
create table clash("or" int primary key, note text not null);
insert into clash values (1, 'one'), (2, 'two'), (3, 'three');
create table badge(_code serial primary key, code int);
insert into badge(code) values (70), (null);`;

const message = (r: { errors?: { message: string }[] }) => r.errors?.map((e) => e.message);
const cursor = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64');

describe.each(PROJECT_DRIVERS)('what pg_graphql clients expect, on %s', (kind) => {
  let p: TestProject;
  beforeAll(async () => {
    p = await startTestProject(kind);
    await p.sql(LAMPS);
  }, 180_000);
  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const gql = (query: string, variables: Record<string, unknown> = {}) => p.gql(query, variables, p.keys.serviceRole);

  it('reads an enum value written as a string in a filter and in an insert, and still refuses a string that names no value', async () => {
    expect(await gql(`{ lampCollection(filter: {colour: {eq: "cold"}}) { edges { node { id } } } }`)).toEqual({
      data: { lampCollection: { edges: [{ node: { id: 2 } }, { node: { id: 3 } }] } },
    });
    expect(await gql(`{ lampCollection(filter: {colour: {in: ["warm"]}}) { edges { node { id } } } }`)).toEqual({
      data: { lampCollection: { edges: [{ node: { id: 1 } }] } },
    });
    expect(
      await gql(`mutation { insertIntoLampCollection(objects: [{id: 4, roomId: 2, watts: 5, colour: "cold"}]) { records { colour } } }`),
    ).toEqual({ data: { insertIntoLampCollection: { records: [{ colour: 'cold' }] } } });
    expect(message(await gql(`{ lampCollection(filter: {colour: {eq: "hot"}}) { edges { node { id } } } }`))).toEqual([
      'Invalid input for LampColour type',
    ]);
    await p.sql(`delete from lamp where id = 4`);
  });

  it('lists root fields and types in name order', async () => {
    const root = await gql(`{ __schema { queryType { fields { name } } mutationType { fields { name } } types { name } } }`);
    const schema = (root.data as any).__schema;
    const names = (list: { name: string }[]) => list.map((f) => f.name);
    expect(names(schema.queryType.fields)).toEqual([
      'badgeCollection',
      'clashByPk',
      'clashCollection',
      'fixtureByPk',
      'fixtureCollection',
      'lampByPk',
      'lampCollection',
      'node',
      'roomByPk',
      'roomCollection',
      'socketByPk',
      'socketCollection',
    ]);
    expect(names(schema.mutationType.fields)).toEqual([
      'deleteFromBadgeCollection',
      'deleteFromClashCollection',
      'deleteFromFixtureCollection',
      'deleteFromLampCollection',
      'deleteFromRoomCollection',
      'deleteFromSocketCollection',
      'insertIntoBadgeCollection',
      'insertIntoClashCollection',
      'insertIntoFixtureCollection',
      'insertIntoLampCollection',
      'insertIntoRoomCollection',
      'insertIntoSocketCollection',
      'updateBadgeCollection',
      'updateClashCollection',
      'updateFixtureCollection',
      'updateLampCollection',
      'updateRoomCollection',
      'updateSocketCollection',
    ]);
    const types = names(schema.types);
    expect(types).toEqual([...types].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(types).toEqual(expect.arrayContaining(['Lamp', 'LampConnection', 'LampColour', 'Room', '__Schema']));
  });

  it('answers aggregates as JSON numbers, over numeric and bigint columns too, and null over no rows', async () => {
    const q = `query($f: FixtureFilter) { fixtureCollection(filter: $f) {
      aggregate { count sum { price lumens } avg { price } min { price lumens } max { lumens } } } }`;
    expect(await gql(q)).toEqual({
      data: {
        fixtureCollection: {
          aggregate: {
            count: 3,
            sum: { price: 24.75, lumens: 4000000800 },
            avg: { price: 12.375 },
            min: { price: 5.25, lumens: 800 },
            max: { lumens: 4000000000 },
          },
        },
      },
    });
    expect(await gql(q, { f: { id: { gt: 5 } } })).toEqual({
      data: {
        fixtureCollection: {
          aggregate: {
            count: 0,
            sum: { price: null, lumens: null },
            avg: { price: null },
            min: { price: null, lumens: null },
            max: { lumens: null },
          },
        },
      },
    });
  });

  it('serves the later of two columns whose names inflect alike, ordered by the key, and offers no ByPk lookup by the hidden key', async () => {
    expect(await gql(`{ badgeCollection { edges { node { code } } } }`)).toEqual({
      data: { badgeCollection: { edges: [{ node: { code: 70 } }, { node: { code: null } }] } },
    });
    expect(message(await gql(`{ badgeByPk(code: 1) { code } }`))).toEqual(['Unknown field "badgeByPk" on type Query']);
  });

  it('filters on a column named like a compound filter, and keeps the other compound filters', async () => {
    const q = `{ clashCollection(filter: {and: [{or: {gte: 2}}, {not: {note: {eq: "three"}}}]}) { edges { node { or note } } } }`;
    expect(await gql(q)).toEqual({ data: { clashCollection: { edges: [{ node: { or: 2, note: 'two' } }] } } });
    expect(message(await gql(`{ clashCollection(filter: {or: [{note: {eq: "one"}}]}) { edges { cursor } } }`))).toEqual([
      'Invalid input for IntFilter type',
    ]);
  });

  it('serves a computed field whose function is volatile, as pg_graphql does', async () => {
    expect(await gql(`{ lampCollection(first: 2) { edges { node { id lampSummary } } } }`)).toEqual({
      data: {
        lampCollection: { edges: [{ node: { id: 1, lampSummary: '40W warm' } }, { node: { id: 2, lampSummary: '60W cold' } }] },
      },
    });
  });

  it.each([
    ['a field a table does not have', `{ lampCollection { edges { node { brightness } } } }`, "Unknown field 'brightness' on type 'Lamp'"],
    ['a root field that does not exist', `{ bulbCollection { totalCount } }`, 'Unknown field "bulbCollection" on type Query'],
    ['a connection field that does not exist', `{ lampCollection { total } }`, 'unknown field in connection'],
    ['an edge field that does not exist', `{ lampCollection { edges { rank } } }`, 'unknown field in edge'],
    [
      'aggregate on a table without the directive',
      `{ lampCollection { aggregate { count } } }`,
      'enable the aggregate directive to use aggregates',
    ],
    ['an argument that does not exist', `{ lampCollection(limit: 2) { edges { cursor } } }`, 'Input contains extra keys ["limit"]'],
    [
      'a filter key that does not exist',
      `{ lampCollection(filter: {lumens: {eq: 1}}) { edges { cursor } } }`,
      'Input for type LampFilter contains extra keys ["lumens"]',
    ],
    ['a missing part of a composite key', `{ socketByPk(roomId: 1) { position } }`, 'Missing primary key column(s): position'],
    [
      'first with before',
      `{ lampCollection(first: 1, before: "${cursor([2])}") { edges { cursor } } }`,
      '"first" may only be used with "after"',
    ],
    [
      'last with after',
      `{ lampCollection(last: 1, after: "${cursor([2])}") { edges { cursor } } }`,
      '"last" may only be used with "before"',
    ],
    [
      'both cursors',
      `{ lampCollection(after: "${cursor([1])}", before: "${cursor([3])}") { edges { cursor } } }`,
      'only one of "before" and "after" may be provided',
    ],
    [
      'offset with last',
      `{ lampCollection(last: 1, offset: 1) { edges { cursor } } }`,
      '"offset" may only be used with "first" and "after"',
    ],
    ['a negative last', `{ lampCollection(last: -2) { edges { cursor } } }`, '`last` must be an unsigned integer'],
    ['a cursor that is not base64', `{ lampCollection(after: "$$$") { edges { cursor } } }`, 'Failed to decode cursor, error 1'],
    [
      'a cursor of another ordering',
      `{ lampCollection(after: "${cursor([40, 1])}") { edges { cursor } } }`,
      'orderBy clause incompatible with pagination cursor',
    ],
    [
      'a nodeId of another table in a filter',
      `{ lampCollection(filter: {nodeId: {eq: "${cursor(['public', 'room', 1])}"}}) { edges { cursor } } }`,
      'nodeId belongs to a different collection',
    ],
    [
      'an update that sets nothing',
      `mutation { updateLampCollection(set: {}) { affectedCount } }`,
      'At least one mapping must be provided to set argument',
    ],
    [
      'two selections of one key that differ',
      `{ lampCollection { edges { node { x: id x: watts } } } }`,
      'Fields `watts` and `id` are different',
    ],
    ['a fragment that spreads itself', `{ ...Again } fragment Again on Query { ...Again }`, 'Found a cycle between fragments'],
    ['an operation name that is not in the document', `query Lamps { lampCollection { edges { cursor } } }`, 'Operation not found'],
  ])('words %s as pg_graphql does, and answers only that error', async (_what, query, expected) => {
    const operationName = expected === 'Operation not found' ? 'Rooms' : undefined;
    const claims = p.project.authenticate(p.keys.serviceRole, undefined);
    const answer = JSON.parse(await p.engine.respond({ query, operationName }, claims));
    expect(answer).toEqual({ data: null, errors: [{ message: expected }] });
  });

  it('words bad variables as pg_graphql does', async () => {
    const q = `query($f: LampFilter, $n: Int!) { lampCollection(filter: $f, first: $n) { edges { cursor } } }`;
    expect(message(await gql(q, { f: { watts: 3 }, n: 1 }))).toEqual(['Invalid input for IntFilter type']);
    expect(message(await gql(q, { f: { watts: { eq: 'x' } }, n: 1 }))).toEqual(['Invalid input for Int type']);
    expect(message(await gql(q, { f: {} }))).toEqual(['Invalid input for NonNull type']);
    expect(message(await gql(q, { f: { volts: { eq: 1 } }, n: 1 }))).toEqual(['Input for type LampFilter contains extra keys ["volts"]']);
  });
});
