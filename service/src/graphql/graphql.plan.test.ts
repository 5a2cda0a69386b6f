import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import type { RColumn, Reflection, RTable } from '../project/project.reflection';
import { buildModel } from './graphql.model';
import { OperationPlanner } from './graphql.plan';
import { RowBudget, type ConnectionPlan, type FilterPlan, type MutationPlan, type QueryPlan } from './graphql.plan.types';
import { buildSchema } from './graphql.schema';
import { mutationSql, querySql } from './graphql.transpile';

// Argument rules checked without a database: a catalog written by hand, planned and transpiled in memory.

const ALL = ['anon', 'authenticated', 'service_role'] as const;
const column = (name: string, num: number, typname: string, sqlType: string, isArray = false): RColumn => ({
  name,
  num,
  sqlType,
  typname,
  typeOid: 0,
  isArray,
  notNull: num === 1,
  hasDefault: false,
  generated: false,
  serial: false,
  composite: false,
  comment: null,
  select: [...ALL],
  insert: [...ALL],
  update: [...ALL],
});
const table = (oid: number, name: string, columns: RColumn[], comment: string | null = null): RTable => ({
  oid,
  schema: 'public',
  name,
  kind: 'r',
  rowSecurity: false,
  comment,
  columns,
  primaryKey: ['id'],
  uniques: [['id']],
  select: [...ALL],
  insert: [...ALL],
  update: [...ALL],
  delete: [...ALL],
});

const reflection: Reflection = {
  version: 1,
  schemas: [{ name: 'public', comment: null }],
  tables: [
    table(
      10,
      'shelf',
      [column('id', 1, 'int4', 'integer'), column('label', 2, 'text', 'text'), column('tags', 3, 'text', 'text[]', true)],
      '@graphql({"totalCount": {"enabled": true}, "aggregate": {"enabled": true}})',
    ),
    table(11, 'volume', [
      column('id', 1, 'int4', 'integer'),
      column('shelf_id', 2, 'int4', 'integer'),
      column('pages', 3, 'int4', 'integer'),
    ]),
  ],
  foreignKeys: [{ name: 'volume_shelf', table: 11, columns: ['shelf_id'], refTable: 10, refColumns: ['id'], comment: null }],
  enums: [],
  functions: [],
  types: {},
};
const model = buildModel(reflection, 'anon');
const schema = buildSchema(model);

/** Plans every root field of `query` with a budget of `maxRows` rows. */
function plan(query: string, variables: Record<string, unknown> = {}, maxRows = 30_000) {
  const document = parse(query);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (coerced.errors) throw coerced.errors[0];
  const planner = new OperationPlanner(schema, model, coerced.coerced, fragments, new RowBudget(maxRows));
  const root = planner.collect(operation.selectionSet, operation.operation === 'mutation' ? 'Mutation' : 'Query');
  const fields = [...root.values()].map((nodes) => nodes[0] as FieldNode);
  return operation.operation === 'mutation' ? fields.map((f) => planner.mutationField(f)) : fields.map((f) => planner.queryField(f));
}
const connectionOf = (p: (QueryPlan | MutationPlan)[]) => (p[0] as Extract<QueryPlan, { kind: 'connection' }>).connection;
const cursorOf = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64');

describe('planning a GraphQL operation, without a database', () => {
  it('reads page arguments into the connection plan, capped at the table’s max rows, with the primary key ending the order', () => {
    const c = connectionOf(plan(`{ shelfCollection(first: 500, orderBy: [{label: DescNullsLast}]) { edges { node { id } } } }`));
    expect(c.limit).toBe(30);
    expect(c.backward).toBe(false);
    expect(c.order).toEqual([
      { column: 'label', sqlType: 'text', dir: 'DescNullsLast' },
      { column: 'id', sqlType: 'integer', dir: 'AscNullsLast' },
    ]);
    const back = connectionOf(plan(`{ shelfCollection(last: 2) { edges { cursor } } }`));
    expect([back.backward, back.limit]).toEqual([true, 2]);
  });

  it.each([
    ['first and last together', `{ shelfCollection(first: 1, last: 1) { totalCount } }`, 'only one of "first" and "last" may be provided'],
    [
      'before and after together',
      `{ shelfCollection(after: "${cursorOf([1])}", before: "${cursorOf([2])}") { totalCount } }`,
      'only one of "before" and "after" may be provided',
    ],
    [
      'first with before',
      `{ shelfCollection(first: 2, before: "${cursorOf([1])}") { totalCount } }`,
      '"first" may only be used with "after"',
    ],
    ['last with after', `{ shelfCollection(last: 2, after: "${cursorOf([1])}") { totalCount } }`, '"last" may only be used with "before"'],
    [
      'offset when paging backwards',
      `{ shelfCollection(last: 1, offset: 0) { totalCount } }`,
      '"offset" may only be used with "first" and "after"',
    ],
    ['a negative page size', `{ shelfCollection(first: -1) { totalCount } }`, '`first` must be an unsigned integer'],
    ['a cursor that is not base64', `{ shelfCollection(after: "no pe") { totalCount } }`, 'Failed to decode cursor, error 1'],
    [
      'a cursor that is not UTF-8',
      `{ shelfCollection(after: "${Buffer.from([0xff, 0xfe, 0xfd]).toString('base64')}") { totalCount } }`,
      'Failed to decode cursor, error 2',
    ],
    [
      'a cursor that is not JSON',
      `{ shelfCollection(after: "${Buffer.from('[1').toString('base64')}") { totalCount } }`,
      'Failed to decode cursor, error 3',
    ],
    [
      'a cursor that is no array',
      `{ shelfCollection(after: "${Buffer.from('{}').toString('base64')}") { totalCount } }`,
      'Failed to decode cursor, error 4',
    ],
    [
      'a cursor of another order',
      `{ shelfCollection(after: "${cursorOf([1, 2])}") { totalCount } }`,
      'orderBy clause incompatible with pagination cursor',
    ],
    [
      'an orderBy entry naming two fields',
      `{ shelfCollection(orderBy: [{id: AscNullsLast, label: AscNullsLast}]) { totalCount } }`,
      'Invalid orderBy: each entry must name exactly one field',
    ],
    [
      'a node id that is not JSON',
      `{ node(nodeId: "${Buffer.from('x').toString('base64')}") { nodeId } }`,
      'Invalid value passed to nodeId argument. Error 4',
    ],
    [
      'a node id that is too short',
      `{ node(nodeId: "${cursorOf(['public', 'shelf'])}") { nodeId } }`,
      'Invalid value passed to nodeId argument. Error 5',
    ],
    [
      'a node id with too many keys',
      `{ node(nodeId: "${cursorOf(['public', 'shelf', 1, 2])}") { nodeId } }`,
      'Invalid value passed to nodeId argument',
    ],
    [
      'a nodeId filter naming another table',
      `{ shelfCollection(filter: {nodeId: {eq: "${cursorOf(['public', 'volume', 4])}"}}) { totalCount } }`,
      'nodeId belongs to a different collection',
    ],
    [
      'an insert without records',
      `mutation { insertIntoshelfCollection(objects: []) { affectedCount } }`,
      'At least one record must be provided to objects',
    ],
    [
      'an update that sets nothing',
      `mutation { updateshelfCollection(set: {}) { affectedCount } }`,
      'At least one mapping must be provided to set argument',
    ],
  ])('refuses %s before any SQL is written', (_name, query, message) => {
    expect(() => plan(query)).toThrow(message);
  });

  it('refuses a request whose nested pages could return more rows than the budget, counting page times page', () => {
    const nested = `{ shelfCollection(first: 10) { edges { node { volumeCollection(first: 10) { edges { node { id } } } } } } }`;
    expect(() => plan(nested, {}, 100)).toThrow('Query may return more than 100 rows');
    expect(() => plan(nested, {}, 110)).not.toThrow();
  });

  it('reads a filter into one tree of typed conditions, in the order of the filter type’s fields', () => {
    const c = connectionOf(
      plan(
        `query($l: [String!]) { shelfCollection(filter: {or: [{label: {in: $l}}, {not: {tags: {contains: ["x"]}}}], id: {gte: 3, is: NOT_NULL}}) { totalCount } }`,
        {
          l: ['a', 'b'],
        },
      ),
    );
    expect(c.filter).toEqual<FilterPlan>({
      kind: 'and',
      parts: [
        { kind: 'compare', column: expect.objectContaining({ name: 'id' }), op: '>=', value: 3 },
        { kind: 'isNull', column: expect.objectContaining({ name: 'id' }), isNull: false },
        {
          kind: 'or',
          parts: [
            { kind: 'in', column: expect.objectContaining({ name: 'label' }), values: ['a', 'b'] },
            { kind: 'not', inner: { kind: 'array', column: expect.objectContaining({ name: 'tags' }), op: '@>', value: ['x'] } },
          ],
        },
      ],
    });
  });

  it('matches a nodeId filter to the primary key', () => {
    const mine = connectionOf(plan(`{ shelfCollection(filter: {nodeId: {eq: "${cursorOf(['public', 'shelf', 4])}"}}) { totalCount } }`));
    expect(mine.filter).toEqual({ kind: 'keyEquals', keys: [{ column: expect.objectContaining({ name: 'id' }), value: 4 }] });
  });

  it('keeps update and delete plans’ filter and atMost, and insert rows with the default for a field a record leaves out', () => {
    const [update, remove, insert] = plan(`mutation {
      u: updateshelfCollection(set: {label: "x"}, filter: {id: {eq: 1}}, atMost: 2) { affectedCount }
      d: deleteFromshelfCollection(filter: {label: {like: "a%"}}) { records { id } }
      i: insertIntoshelfCollection(objects: [{id: 1}, {id: 2, label: "b"}]) { records { label } }
    }`) as MutationPlan[];
    expect(update).toMatchObject({ kind: 'update', atMost: 2, filter: { kind: 'compare', op: '=', value: 1 } });
    expect(remove).toMatchObject({ kind: 'delete', atMost: 1, filter: { kind: 'text', op: 'like', value: 'a%' } });
    expect(insert).toMatchObject({
      kind: 'insert',
      rows: [
        [1, undefined],
        [2, 'b'],
      ],
    });
  });
});

describe('writing the SQL of a plan', () => {
  it('writes a connection’s filter once per place it is read, and every request value as a parameter', () => {
    const plans = plan(
      `{ shelfCollection(filter: {label: {eq: "o'clock"}}) { totalCount aggregate { count } edges { node { id } } } }`,
    ) as QueryPlan[];
    const { sql, params, columns } = querySql(plans);
    expect(columns).toEqual(['f0']);
    expect(sql).not.toContain("o'clock");
    // The page reads the filter once, and totalCount and aggregate share one more reading of the filtered rows.
    expect(params.filter((p) => p === "o'clock")).toHaveLength(2);
  });

  it('puts a limit on an update only through atMost, and writes one statement per mutation field', () => {
    const [update] = plan(`mutation { updateshelfCollection(set: {label: "y"}, atMost: 3) { affectedCount } }`) as MutationPlan[];
    const { sql, params } = mutationSql(update!);
    expect(sql).toMatch(/^with affected as \(update "public"\."shelf" t1 set "label" = \$1::text returning/);
    expect(params[0]).toBe('y');
  });

  it('joins a nested connection to its outer row', () => {
    const plans = plan(`{ shelfCollection { edges { node { volumeCollection { totalCount } } } } }`) as QueryPlan[];
    const nested = (connectionOf(plans).fields[0]![1] as Extract<ConnectionPlan['fields'][number][1], { kind: 'edges' }>).fields[0]![1];
    expect(nested).toMatchObject({
      kind: 'node',
      node: { fields: [['volumeCollection', { kind: 'toMany', connection: { join: [['id', 'shelf_id']] } }]] },
    });
    expect(querySql(plans).sql).toContain('"shelf_id" = t1."id"');
  });
});
