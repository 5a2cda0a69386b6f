import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
  type ValueNode,
} from 'graphql';
import { directiveOf } from '../project/project.reflection';
import { columnFields, lowerFirst, scalarName, type GraphModel, type ScalarKind, type TableModel } from './graphql.model';

/** The hidden key SQL results carry so the Node interface can tell a row's type. */
export const TYPE_KEY = '__svc_type';

function literalOf(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.ENUM:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return ast.value;
    case Kind.BOOLEAN:
      return ast.value;
    default:
      return undefined;
  }
}

function stringScalar(name: string, description: string, valid: (s: string) => boolean, acceptNumbers = false): GraphQLScalarType {
  const parse = (v: unknown) => {
    if (typeof v === 'number' && acceptNumbers && Number.isFinite(v)) return String(v);
    if (typeof v !== 'string' || !valid(v)) throw new TypeError(`Invalid input for ${name} type`);
    return v;
  };
  return new GraphQLScalarType({
    name,
    description,
    serialize: (v) => v,
    parseValue: parse,
    parseLiteral: (ast) => {
      if (ast.kind === Kind.STRING || (acceptNumbers && (ast.kind === Kind.INT || ast.kind === Kind.FLOAT)))
        return parse(literalOf(ast) as string);
      throw new TypeError(`Invalid input for ${name} type`);
    },
  });
}

const BIGINT = /^-?\d{1,19}$/;
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^(NaN|-?Infinity)$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const anyText = (s: string) => s.length <= 1_000_000;
const isJson = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

/** The custom scalars pg_graphql defines. */
export function customScalars(): Record<string, GraphQLScalarType> {
  return {
    BigInt: stringScalar('BigInt', 'An arbitrary size integer represented as a string', (s) => BIGINT.test(s), true),
    BigFloat: stringScalar('BigFloat', 'A high precision floating point value represented as a string', (s) => DECIMAL.test(s), true),
    UUID: stringScalar('UUID', 'A universally unique identifier', (s) => UUID.test(s)),
    Date: stringScalar('Date', 'A date wihout time information', anyText),
    Time: stringScalar('Time', 'A time without date information', anyText),
    Datetime: stringScalar('Datetime', 'A date and time', anyText),
    JSON: stringScalar('JSON', 'A Javascript Object Notation value serialized as a string', isJson),
    Cursor: stringScalar('Cursor', 'An opaque string using for tracking a position in results during pagination', anyText),
    Opaque: new GraphQLScalarType({
      name: 'Opaque',
      description: 'Any type not handled by the type system',
      serialize: (v) => v,
      parseValue: (v) => v,
    }),
  };
}

const FILTER_OPS_ORDERED = ['eq', 'gt', 'gte', 'in', 'lt', 'lte', 'neq', 'is'];

/** Builds the GraphQL schema of one role's model, with the types pg_graphql documents. */
export function buildSchema(model: GraphModel): GraphQLSchema {
  const scalars = customScalars();
  const filterIs = new GraphQLEnumType({ name: 'FilterIs', values: { NULL: { value: 'NULL' }, NOT_NULL: { value: 'NOT_NULL' } } });
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
  const enumTypes = new Map<string, GraphQLEnumType>();
  for (const e of model.enums.values()) {
    enumTypes.set(
      e.typeName,
      new GraphQLEnumType({ name: e.typeName, values: Object.fromEntries([...e.values].map(([name, label]) => [name, { value: label }])) }),
    );
  }

  const scalarType = (s: ScalarKind): GraphQLInputType & GraphQLOutputType => {
    if (typeof s !== 'string') return enumTypes.get(s.enum)!;
    switch (s) {
      case 'Int':
        return GraphQLInt;
      case 'Float':
        return GraphQLFloat;
      case 'String':
        return GraphQLString;
      case 'Boolean':
        return GraphQLBoolean;
      default:
        return scalars[s]!;
    }
  };
  const valueType = (s: ScalarKind, isArray: boolean) => (isArray ? new GraphQLList(scalarType(s)) : scalarType(s));

  const filters = new Map<string, GraphQLInputObjectType>();
  const filterFor = (s: ScalarKind, isArray: boolean): GraphQLInputObjectType | undefined => {
    if (s === 'JSON') return undefined;
    const base = scalarName(s);
    const name = `${base}${isArray ? 'List' : ''}Filter`;
    const existing = filters.get(name);
    if (existing) return existing;
    const t = scalarType(s);
    const list = new GraphQLList(new GraphQLNonNull(t));
    let fields: GraphQLInputFieldConfigMap;
    if (isArray)
      fields = {
        contains: { type: list },
        containedBy: { type: list },
        eq: { type: list },
        overlaps: { type: list },
        is: { type: filterIs },
      };
    else if (s === 'Opaque') fields = { eq: { type: t }, is: { type: filterIs } };
    else if (s === 'Boolean') fields = { eq: { type: t }, is: { type: filterIs } };
    else if (s === 'UUID' || typeof s !== 'string')
      fields = { eq: { type: t }, in: { type: list }, is: { type: filterIs }, neq: { type: t } };
    else {
      fields = Object.fromEntries(FILTER_OPS_ORDERED.map((op) => [op, { type: op === 'in' ? list : op === 'is' ? filterIs : t }]));
      if (s === 'String') {
        for (const op of ['startsWith', 'like', 'ilike', 'regex', 'iregex']) fields[op] = { type: t };
      }
    }
    const f = new GraphQLInputObjectType({
      name,
      description: `Boolean expression comparing fields on type "${base}${isArray ? 'List' : ''}"`,
      fields,
    });
    filters.set(name, f);
    return f;
  };

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
        const out: GraphQLInputFieldConfigMap = { nodeId: { type: idFilter } };
        for (const c of columnFields(t)) {
          const ft = filterFor(c.scalar, c.isArray);
          if (ft) out[c.name] = { type: ft };
        }
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
            .filter((c) => !c.isArray && c.scalar !== 'JSON')
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
    orderBy: { type: new GraphQLList(new GraphQLNonNull(orderByOf(t))), description: 'Sort order to apply to the collection' },
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
          else if (f.kind === 'toOne') out[f.name] = { type: objectOf(f.target) };
          else out[f.name] = { type: new GraphQLNonNull(connectionOf(f.target)), args: collectionArgs(f.target) };
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
    if (pkFields.every((f) => f !== undefined)) {
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
    query: new GraphQLObjectType({ name: 'Query', description: 'The root type for querying data', fields: byName(query) }),
    mutation:
      Object.keys(mutation).length > 0
        ? new GraphQLObjectType({
            name: 'Mutation',
            description: 'The root type for creating and mutating data',
            fields: byName(mutation),
          })
        : undefined,
    types: [...objects.values(), ...Object.values(scalars)],
  });
}

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
