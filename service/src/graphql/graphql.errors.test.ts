import { buildSchema, parse, validate, type OperationDefinitionNode } from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import { pgGraphqlMessage } from './graphql.errors';

// A schema of our own shaped as the engine's (table types, connections, edges, filters), checked through
// graphql-js itself so that a change in its wording shows here first.
const schema = buildSchema(`
  input IntFilter { eq: Int }
  input LampFilter { id: IntFilter }
  input LampInsertInput { id: Int watts: Int }
  enum OrderByDirection { AscNullsFirst DescNullsLast }
  input LampOrderBy { id: OrderByDirection }
  type Lamp { id: Int! watts: Int }
  type LampEdge { node: Lamp! cursor: String! }
  type PageInfo { hasNextPage: Boolean! }
  type LampConnection { edges: [LampEdge!]! pageInfo: PageInfo! }
  type LampInsertResponse { affectedCount: Int! }
  type LampSumAggregateResult { watts: Int }
  type Query { lampCollection(first: Int, filter: LampFilter, orderBy: [LampOrderBy!]): LampConnection lampByPk(id: Int!): Lamp }
  type Mutation { insertIntoLampCollection(objects: [LampInsertInput!]!): LampInsertResponse }
`);
const firstValidationError = (query: string) => pgGraphqlMessage(validate(schema, parse(query))[0]!.message);
const firstVariableError = (query: string, variables: Record<string, unknown>) => {
  const op = parse(query).definitions[0] as OperationDefinitionNode;
  return pgGraphqlMessage(getVariableValues(schema, op.variableDefinitions ?? [], variables).errors![0]!.message);
};

describe("graphql-js's messages in pg_graphql's words", () => {
  it.each([
    ['a root field', `{ bulbCollection { edges { cursor } } }`, 'Unknown field "bulbCollection" on type Query'],
    [
      'a mutation field',
      `mutation { insertIntoBulbCollection { affectedCount } }`,
      'Unknown field "insertIntoBulbCollection" on type Mutation',
    ],
    ['a connection field', `{ lampCollection { count } }`, 'unknown field in connection'],
    ['aggregate when it is off', `{ lampCollection { aggregate { count } } }`, 'enable the aggregate directive to use aggregates'],
    ['an edge field', `{ lampCollection { edges { position } } }`, 'unknown field in edge'],
    ['a pageInfo field', `{ lampCollection { pageInfo { total } } }`, 'unknown field in pageInfo'],
    ['a row field', `{ lampByPk(id: 1) { colour } }`, "Unknown field 'colour' on type 'Lamp'"],
    ['a mutation response field', `mutation { insertIntoLampCollection(objects: []) { records } }`, 'unknown field in insert'],
    ['an argument', `{ lampCollection(last: 1) { edges { cursor } } }`, 'Input contains extra keys ["last"]'],
    [
      'an input object key',
      `mutation { insertIntoLampCollection(objects: [{volts: 3}]) { affectedCount } }`,
      'Input for type LampInsertInput contains extra keys ["volts"]',
    ],
    ['a required argument', `{ lampByPk { id } }`, 'Invalid input for NonNull type'],
    ['a string for an int', `{ lampByPk(id: "x") { id } }`, 'Invalid input for Int type'],
    ['a scalar for a filter', `{ lampCollection(filter: 3) { edges { cursor } } }`, 'Invalid input for LampFilter type'],
    ['two fields under one key', `{ lampByPk(id: 1) { a: id a: watts } }`, 'Fields `watts` and `id` are different'],
    [
      'one field with two argument lists',
      `{ lampByPk(id: 1) { id } lampByPk(id: 2) { id } }`,
      'Two fields named `lampByPk` have different arguments',
    ],
    ['a fragment cycle', `{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }`, 'Found a cycle between fragments'],
  ])('names %s that does not exist or does not fit as pg_graphql does', (_what, query, message) => {
    expect(firstValidationError(query)).toBe(message);
  });

  it.each([
    ['a missing required variable', `query($id: Int!) { lampByPk(id: $id) { id } }`, {}, 'Invalid input for NonNull type'],
    [
      'a variable of the wrong scalar',
      `query($f: LampFilter) { lampCollection(filter: $f) { edges { cursor } } }`,
      { f: { id: { eq: true } } },
      'Invalid input for Int type',
    ],
    [
      'a variable that is not an object',
      `query($f: LampFilter) { lampCollection(filter: $f) { edges { cursor } } }`,
      { f: { id: 2 } },
      'Invalid input for IntFilter type',
    ],
    [
      'a variable with an extra key',
      `query($f: LampFilter) { lampCollection(filter: $f) { edges { cursor } } }`,
      { f: { watts: 2 } },
      'Input for type LampFilter contains extra keys ["watts"]',
    ],
    [
      'an enum value that does not exist',
      `query($d: OrderByDirection!) { lampCollection(orderBy: [{id: $d}]) { edges { cursor } } }`,
      { d: 'Up' },
      'Invalid input for OrderByDirection type',
    ],
  ])('names %s as pg_graphql does', (_what, query, variables, message) => {
    expect(firstVariableError(query, variables)).toBe(message);
  });

  it('keeps a message pg_graphql has no words for', () => {
    expect(pgGraphqlMessage('Something else entirely')).toBe('Something else entirely');
  });
});
