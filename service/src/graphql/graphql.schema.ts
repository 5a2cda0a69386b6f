import {
  GraphQLDirective,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLOutputType,
} from 'graphql';
import { directiveOf } from '../project/project.reflection';
import { columnFields, lowerFirst, scalarName, type ColumnField, type GraphModel, type TableModel } from './graphql.model';
import { ScalarTypes } from './graphql.scalars';

/** The hidden key SQL results carry so the Node interface can tell a row's type. */
export const TYPE_KEY = '__svc_type';

/** Builds the GraphQL schema of one role's model, with the types pg_graphql documents. */
export function buildSchema(model: GraphModel): GraphQLSchema {
  const types = new ScalarTypes(model);
  const { scalars, filterFor, scalarType, valueType, filterIs } = types;
  const direction = new GraphQLEnumType({
    name: 'OrderByDirection',
    description: 'Defines a per-field sorting order',
    values: {
      AscNullsFirst: { value: 'AscNullsFirst', description: 'Ascending order, nulls first' },
      AscNullsLast: { value: 'AscNullsLast', description: 'Ascending order, nulls last' },
      DescNullsFirst: { value: 'DescNullsFirst', description: 'Descending order, nulls first' },
      DescNullsLast: { value: 'DescNullsLast', description: 'Descending order, nulls last' },
    },
  });
  const pageInfo = new GraphQLObjectType({
    name: 'PageInfo',
    fields: {
      endCursor: { type: GraphQLString },
      hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
      hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
      startCursor: { type: GraphQLString },
    },
  });
  const node = new GraphQLInterfaceType({
    name: 'Node',
    fields: { nodeId: { type: new GraphQLNonNull(GraphQLID), description: 'Retrieves a record by `ID`' } },
    resolveType: (value: Record<string, unknown>) => value[TYPE_KEY] as string,
  });
  const idFilter = new GraphQLInputObjectType({
    name: 'IDFilter',
    description: 'Boolean expression comparing fields on type "ID"',
    fields: { eq: { type: GraphQLID } },
  });
  const objects = new Map<string, GraphQLObjectType>();
  const connections = new Map<string, GraphQLObjectType>();
  const tableFilters = new Map<string, GraphQLInputObjectType>();
  const orderBys = new Map<string, GraphQLInputObjectType>();

  const filterOf = (t: TableModel): GraphQLInputObjectType => {
    let f = tableFilters.get(t.typeName);
    if (f) return f;
    f = new GraphQLInputObjectType({
      name: `${t.typeName}Filter`,
      fields: () => {
        const out: GraphQLInputFieldConfigMap = {};
        for (const c of columnFields(t)) {
          const ft = filterFor(c.scalar, c.isArray);
          if (ft) out[c.name] = { type: ft };
        }
        // After the columns, as pg_graphql lists it (a column named nodeId is not served).
        out.nodeId = { type: idFilter };
        // A column named `and`, `or` or `not` takes the name from the compound filter, as in pg_graphql.
        out.and ??= { type: new GraphQLList(new GraphQLNonNull(filterOf(t))) };
        out.or ??= { type: new GraphQLList(new GraphQLNonNull(filterOf(t))) };
        out.not ??= { type: filterOf(t) };
        return out;
      },
    });
    tableFilters.set(t.typeName, f);
    return f;
  };
  const orderByOf = (t: TableModel): GraphQLInputObjectType => {
    let o = orderBys.get(t.typeName);
    if (o) return o;
    o = new GraphQLInputObjectType({
      name: `${t.typeName}OrderBy`,
      fields: () =>
        Object.fromEntries(
          columnFields(t)
            .filter(orderable)
            .map((c) => [c.name, { type: direction }]),
        ),
    });
    orderBys.set(t.typeName, o);
    return o;
  };
  const collectionArgs = (t: TableModel): GraphQLFieldConfigArgumentMap => ({
    first: { type: GraphQLInt, description: 'Query the first `n` records in the collection' },
    last: { type: GraphQLInt, description: 'Query the last `n` records in the collection' },
    before: { type: scalars.Cursor!, description: 'Query values in the collection before the provided cursor' },
    after: { type: scalars.Cursor!, description: 'Query values in the collection after the provided cursor' },
    offset: {
      type: GraphQLInt,
      description: 'Skip n values from the after cursor. Alternative to cursor pagination. Backward pagination not supported.',
    },
    filter: { type: filterOf(t), description: 'Filters to apply to the results set when querying from the collection' },
    // A table with no column to order by has no orderBy (an input type needs a field).
    ...(columnFields(t).some(orderable)
      ? { orderBy: { type: new GraphQLList(new GraphQLNonNull(orderByOf(t))), description: 'Sort order to apply to the collection' } }
      : {}),
  });
  const connectionOf = (t: TableModel): GraphQLObjectType => {
    let c = connections.get(t.typeName);
    if (c) return c;
    const edge = new GraphQLObjectType({
      name: `${t.typeName}Edge`,
      fields: () => ({ cursor: { type: new GraphQLNonNull(GraphQLString) }, node: { type: new GraphQLNonNull(objectOf(t)) } }),
    });
    c = new GraphQLObjectType({
      name: `${t.typeName}Connection`,
      fields: () => ({
        edges: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))) },
        pageInfo: { type: new GraphQLNonNull(pageInfo) },
        ...(t.aggregate
          ? { aggregate: { type: aggregateOf(t), description: `Aggregate functions calculated on the collection of \`${t.typeName}\`` } }
          : {}),
        ...(t.totalCount
          ? {
              totalCount: {
                type: new GraphQLNonNull(GraphQLInt),
                description: 'The total number of records matching the `filter` criteria',
              },
            }
          : {}),
      }),
    });
    connections.set(t.typeName, c);
    return c;
  };
  const aggregateOf = (t: TableModel): GraphQLObjectType => {
    const cols = columnFields(t).filter((c) => !c.isArray);
    const numeric = cols.filter((c) => ['Int', 'BigInt', 'Float', 'BigFloat'].includes(scalarName(c.scalar)));
    const comparable = cols.filter((c) =>
      ['Int', 'BigInt', 'Float', 'BigFloat', 'String', 'Date', 'Time', 'Datetime'].includes(scalarName(c.scalar)),
    );
    const result = (kind: string, fields: typeof cols, type: (c: (typeof cols)[number]) => GraphQLOutputType) =>
      fields.length === 0
        ? {}
        : {
            [kind.toLowerCase()]: {
              type: new GraphQLObjectType({
                name: `${t.typeName}${kind}AggregateResult`,
                fields: Object.fromEntries(fields.map((c) => [c.name, { type: type(c) }])),
              }),
            },
          };
    return new GraphQLObjectType({
      name: `${t.typeName}Aggregate`,
      fields: {
        count: { type: new GraphQLNonNull(GraphQLInt), description: 'The number of records matching the query' },
        ...result('Sum', numeric, (c) => (c.scalar === 'Int' || c.scalar === 'BigInt' ? scalars.BigInt! : scalars.BigFloat!)),
        ...result('Avg', numeric, () => scalars.BigFloat!),
        ...result('Min', comparable, (c) => scalarType(c.scalar)),
        ...result('Max', comparable, (c) => scalarType(c.scalar)),
      },
    });
  };
  const objectOf = (t: TableModel): GraphQLObjectType => {
    let o = objects.get(t.typeName);
    if (o) return o;
    o = new GraphQLObjectType({
      name: t.typeName,
      description: t.description ?? undefined,
      interfaces: [node],
      fields: () => {
        const out: GraphQLFieldConfigMap<unknown, unknown> = {
          nodeId: { type: new GraphQLNonNull(GraphQLID), description: 'Globally Unique Record Identifier' },
        };
        for (const f of t.fields.values()) {
          if (f.kind === 'column') {
            const d = directiveOf(f.column.comment).description;
            const description = typeof d === 'string' ? d : undefined;
            const type = valueType(f.scalar, f.isArray);
            out[f.name] = { type: f.column.notNull ? new GraphQLNonNull(type) : type, description };
          } else if (f.kind === 'computed') out[f.name] = { type: valueType(f.scalar, f.isArray) };
          else if (f.kind === 'toOne') out[f.name] = { type: f.notNull ? new GraphQLNonNull(objectOf(f.target)) : objectOf(f.target) };
          else if (f.kind === 'computedRelation')
            out[f.name] = f.many ? { type: connectionOf(f.target), args: collectionArgs(f.target) } : { type: objectOf(f.target) };
          else out[f.name] = { type: connectionOf(f.target), args: collectionArgs(f.target) };
        }
        return out;
      },
    });
    objects.set(t.typeName, o);
    return o;
  };

  const query: GraphQLFieldConfigMap<unknown, unknown> = {
    node: { type: node, description: 'Retrieve a record by its `ID`', args: { nodeId: { type: new GraphQLNonNull(GraphQLID) } } },
  };
  const mutation: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const t of model.tables) {
    query[t.collectionName] = {
      type: connectionOf(t),
      args: collectionArgs(t),
      description: `A pagable collection of type \`${t.typeName}\``,
    };
    const pkFields = t.primaryKey.map((c) => columnFields(t).find((f) => f.column.name === c.name));
    // A key column whose name another column took has no argument to be looked up by.
    if (pkFields.every((f) => f !== undefined) && t.primaryKey.every((c) => BY_PK_TYPES.has(c.typname))) {
      query[`${lowerFirst(t.typeName)}ByPk`] = {
        type: objectOf(t),
        description: `Retrieve a record of type \`${t.typeName}\` by its primary key`,
        args: Object.fromEntries(pkFields.map((f) => [f.name, { type: new GraphQLNonNull(valueType(f.scalar, f.isArray)) }])),
      };
    }
    const mutationResponse = (verb: string) =>
      new GraphQLObjectType({
        name: `${t.typeName}${verb}Response`,
        fields: () => ({
          affectedCount: { type: new GraphQLNonNull(GraphQLInt), description: 'Count of the records impacted by the mutation' },
          records: {
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(objectOf(t)))),
            description: 'Array of records impacted by the mutation',
          },
        }),
      });
    const atMost = {
      type: new GraphQLNonNull(GraphQLInt),
      defaultValue: 1,
      description: 'The maximum number of records in the collection permitted to be affected',
    };
    const insertable = columnFields(t).filter((c) => c.insertable);
    if (t.canInsert && insertable.length > 0) {
      const input = new GraphQLInputObjectType({
        name: `${t.typeName}InsertInput`,
        fields: Object.fromEntries(insertable.map((c) => [c.name, { type: valueType(c.scalar, c.isArray) }])),
      });
      mutation[`insertInto${t.typeName}Collection`] = {
        type: mutationResponse('Insert'),
        description: `Adds one or more \`${t.typeName}\` records to the collection`,
        args: { objects: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(input))) } },
      };
    }
    const updatable = columnFields(t).filter((c) => c.updatable);
    if (t.canUpdate && updatable.length > 0) {
      const input = new GraphQLInputObjectType({
        name: `${t.typeName}UpdateInput`,
        fields: Object.fromEntries(updatable.map((c) => [c.name, { type: valueType(c.scalar, c.isArray) }])),
      });
      mutation[`update${t.typeName}Collection`] = {
        type: new GraphQLNonNull(mutationResponse('Update')),
        description: 'Updates zero or more records in the collection',
        args: { set: { type: new GraphQLNonNull(input) }, filter: { type: filterOf(t) }, atMost },
      };
    }
    if (t.canDelete) {
      mutation[`deleteFrom${t.typeName}Collection`] = {
        type: new GraphQLNonNull(mutationResponse('Delete')),
        description: 'Deletes zero or more records from the collection',
        args: { filter: { type: filterOf(t) }, atMost },
      };
    }
  }
  for (const f of model.functions) {
    const args: GraphQLFieldConfigArgumentMap = Object.fromEntries(
      f.args.map((a) => [
        a.name,
        { type: a.optional ? valueType(a.scalar, a.isArray) : new GraphQLNonNull(valueType(a.scalar, a.isArray)) },
      ]),
    );
    let type: GraphQLOutputType;
    if ('table' in f.returns) {
      if (f.fn.returnsSet) {
        type = connectionOf(f.returns.table);
        Object.assign(args, collectionArgs(f.returns.table));
      } else type = objectOf(f.returns.table);
    } else type = valueType(f.returns.scalar, f.returns.isArray);
    (f.mutation ? mutation : query)[f.name] = { type, args };
  }
  return new NameOrderedSchema({
    directives: DIRECTIVES,
    query: new GraphQLObjectType({ name: 'Query', description: 'The root type for querying data', fields: byName(query) }),
    mutation:
      Object.keys(mutation).length > 0
        ? new GraphQLObjectType({
            name: 'Mutation',
            description: 'The root type for creating and mutating data',
            fields: byName(mutation),
          })
        : undefined,
    // pg_graphql's schema always has the filter types of every scalar, and the types pages use.
    types: [...objects.values(), ...Object.values(scalars), ...types.standardFilters(), filterIs, direction, pageInfo, idFilter],
  });
}

/** The key types pg_graphql looks rows up by (`<table>ByPk`): integers, text and uuid. */
const BY_PK_TYPES = new Set(['int2', 'int4', 'int8', 'text', 'varchar', 'bpchar', 'char', 'citext', 'uuid']);

/** Whether a connection can be ordered by a column. */
const orderable = (c: ColumnField) => !c.isArray && c.scalar !== 'JSON';

/** @include and @skip, described in pg_graphql's words (the only directives it knows). */
const DIRECTIVES = [
  new GraphQLDirective({
    ...GraphQLIncludeDirective.toConfig(),
    description: 'This field or fragment will be included only when the `if` argument is true.',
  }),
  new GraphQLDirective({
    ...GraphQLSkipDirective.toConfig(),
    description: 'This field or fragment will be skipped when the `if` argument is true.',
  }),
];

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Root fields in name order, as pg_graphql lists them. */
function byName<T>(fields: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => byCodePoint(a, b)));
}

/** A schema whose introspection lists its types in name order, as pg_graphql's `__schema { types }` does. */
class NameOrderedSchema extends GraphQLSchema {
  private sortedTypeMap: ReturnType<GraphQLSchema['getTypeMap']> | undefined;

  override getTypeMap(): ReturnType<GraphQLSchema['getTypeMap']> {
    this.sortedTypeMap ??= Object.fromEntries(Object.entries(super.getTypeMap()).sort(([a], [b]) => byCodePoint(a, b)));
    return this.sortedTypeMap;
  }
}
