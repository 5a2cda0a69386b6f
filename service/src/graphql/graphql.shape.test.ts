import { buildSchema, execute, Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import { shapeQuery } from './graphql.shape';

const schema = buildSchema(`
  interface Node { nodeId: ID! }
  enum Colour { RED, GREEN }
  type Author implements Node { nodeId: ID! id: Int! name: String rating: Float tags: [String!] colour: Colour }
  type Post implements Node { nodeId: ID! id: Int! title: String! score: Int author: Author! maybeAuthor: Author }
  type PostEdge { cursor: String! node: Post! }
  type PageInfo { hasNextPage: Boolean! }
  type PostConnection { edges: [PostEdge!]! pageInfo: PageInfo! totalCount: Int! }
  type Query { postCollection(first: Int): PostConnection node(nodeId: ID!): Node }
`);

const author = { nodeId: 'QQ==', id: 7, name: 'Ann', rating: 4.5, tags: ['a', 'b'], colour: 'RED', extra: 'not selected' };
const post = (id: number, over: Record<string, unknown> = {}) => ({
  nodeId: `P${id}`,
  id,
  title: `t${id}`,
  score: id * 3,
  author,
  ...over,
});

/** What `execute` answers with the engine's resolver, and what the fast path answers (undefined when it gives up). */
function both(query: string, root: Record<string, unknown>, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables).coerced!;
  const executed = execute({
    schema,
    document,
    variableValues: variables,
    rootValue: root,
    fieldResolver: (source: Record<string, unknown> | null, _a, _c, info) => source?.[String(info.path.key)],
  }) as { data?: unknown; errors?: unknown[] };
  return { executed, shaped: shapeQuery(schema, operation, fragments, coerced, root) };
}

describe('shapeQuery answers as graphql-js execute does, or gives up', () => {
  it.each([
    [
      'fields, aliases and __typename at every level',
      `{ __typename postCollection { __typename totalCount edges { cursor node { id t: title score author { __typename name } } } } }`,
      { postCollection: { totalCount: 2, edges: [{ cursor: 'c1', node: { id: 1, t: 't1', score: 3, author } }] } },
      {},
    ],
    [
      'fragments, inline fragments and repeated fields merged',
      `query { postCollection { edges { node { ...P ... on Post { score author { name } } author { id } } } } }
       fragment P on Post { id title author { rating } }`,
      { postCollection: { edges: [{ node: post(1) }, { node: post(2) }] } },
      {},
    ],
    [
      '@skip and @include with variables',
      `query($s: Boolean!, $i: Boolean!) { postCollection { edges { node { id title @skip(if: $s) score @include(if: $i) } } } }`,
      { postCollection: { edges: [{ node: post(1) }] } },
      { s: true, i: false },
    ],
    [
      'ID serialized from a number, floats, enums, lists of scalars, null nullable fields',
      `{ postCollection { edges { node { nodeId: id maybeAuthor { name } author { rating tags colour name } } } } }`,
      { postCollection: { edges: [{ node: { nodeId: 5, maybeAuthor: null, author: { ...author, name: null } } }] } },
      {},
    ],
    ['a null root field', `{ postCollection { totalCount } }`, { postCollection: null }, {}],
    ['an empty list', `{ postCollection { edges { cursor } } }`, { postCollection: { edges: [] } }, {}],
  ])('%s: the same answer', (_name, query, root, variables) => {
    const { executed, shaped } = both(query, root, variables);
    expect(executed.errors).toBeUndefined();
    expect(shaped).toBeDefined();
    expect(JSON.stringify(shaped)).toBe(JSON.stringify(executed.data));
  });

  const ERRORS = 'execute reports an error';
  it.each([
    [
      'a null in a non-null position',
      `{ postCollection { edges { node { title } } } }`,
      { postCollection: { edges: [{ node: post(1, { title: null }) }] } },
      ERRORS,
    ],
    ['a non-null list item that is null', `{ postCollection { edges { cursor } } }`, { postCollection: { edges: [null] } }, ERRORS],
    ['an Int out of range', `{ postCollection { totalCount } }`, { postCollection: { totalCount: 2 ** 40 } }, ERRORS],
    ['a string where an Int belongs', `{ postCollection { totalCount } }`, { postCollection: { totalCount: 'x' } }, ERRORS],
    [
      'an unknown enum value',
      `{ postCollection { edges { node { author { colour } } } } }`,
      { postCollection: { edges: [{ node: post(1, { author: { colour: 'BLUE' } }) }] } },
      ERRORS,
    ],
    ['an object where a list belongs', `{ postCollection { edges { cursor } } }`, { postCollection: { edges: { cursor: 'c' } } }, ERRORS],
    ['an abstract type (no type to resolve it to)', `{ node(nodeId: "x") { nodeId } }`, { node: { nodeId: 'x' } }, ERRORS],
    ['introspection', `{ __schema { queryType { name } } }`, {}, { __schema: { queryType: { name: 'Query' } } }],
  ])('%s: gives up, and execute answers it its own way', (_name, query, root, expected) => {
    const { executed, shaped } = both(query, root);
    expect(shaped).toBeUndefined();
    if (expected === ERRORS) expect(executed.errors).toEqual([expect.anything()]);
    else expect(executed).toEqual({ data: expected });
  });

  it('leaves mutations to execute', () => {
    const s = buildSchema(`type Query { a: Int } type Mutation { m: Int }`);
    const document = parse(`mutation { m }`);
    const op = document.definitions[0] as OperationDefinitionNode;
    expect(shapeQuery(s, op, {}, {}, { m: 1 })).toBeUndefined();
  });
});
