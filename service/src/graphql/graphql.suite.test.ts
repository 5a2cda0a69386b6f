/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk arbitrary JSON answers */
import { PROJECT_DRIVERS, startTestProject, type TestProject } from '@svc/service/testing';

// Behaviour pg_graphql's regression suite checks and its documentation leaves out: how lenient it is with
// variables, which types its schema always has, and which columns it leaves out.

const GARDEN = `
comment on schema public is '@graphql({"inflect_names": true})';
create table bed(id int primary key, crop text, rows int not null);
insert into bed values (1, 'kale', 4), (2, null, 2), (3, 'leek', 6);`;

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

  const gql = (query: string, variables: Record<string, unknown> = {}) => p.gql(query, variables, p.keys.serviceRole);

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
});
