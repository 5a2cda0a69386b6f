import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
  type ValueNode,
} from 'graphql';
import { scalarName, type GraphModel, type ScalarKind } from './graphql.model';

// The leaf types of the schema: pg_graphql's custom scalars, the project's enums, and the filter type of each scalar.

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

/** The scalar, enum and per-scalar filter types of one role's schema, each made once. */
export class ScalarTypes {
  readonly scalars = customScalars();
  readonly filterIs = new GraphQLEnumType({ name: 'FilterIs', values: { NULL: { value: 'NULL' }, NOT_NULL: { value: 'NOT_NULL' } } });
  private readonly enumTypes = new Map<string, GraphQLEnumType>();
  private readonly filters = new Map<string, GraphQLInputObjectType>();

  constructor(model: GraphModel) {
    for (const e of model.enums.values()) {
      this.enumTypes.set(
        e.typeName,
        new GraphQLEnumType({
          name: e.typeName,
          values: Object.fromEntries([...e.values].map(([name, label]) => [name, { value: label }])),
        }),
      );
    }
  }

  /** The GraphQL type of a scalar kind. */
  readonly scalarType = (s: ScalarKind): GraphQLInputType & GraphQLOutputType => {
    if (typeof s !== 'string') return this.enumTypes.get(s.enum)!;
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
        return this.scalars[s]!;
    }
  };

  /** The type of a value: the scalar's, or a list of it. */
  readonly valueType = (s: ScalarKind, isArray: boolean) => (isArray ? new GraphQLList(this.scalarType(s)) : this.scalarType(s));

  /** The `<Scalar>Filter` (or `<Scalar>ListFilter`) input type; none for JSON. */
  readonly filterFor = (s: ScalarKind, isArray: boolean): GraphQLInputObjectType | undefined => {
    if (s === 'JSON') return undefined;
    const base = scalarName(s);
    const name = `${base}${isArray ? 'List' : ''}Filter`;
    const existing = this.filters.get(name);
    if (existing) return existing;
    const t = this.scalarType(s);
    const list = new GraphQLList(new GraphQLNonNull(t));
    let fields: GraphQLInputFieldConfigMap;
    if (isArray)
      fields = {
        contains: { type: list },
        containedBy: { type: list },
        eq: { type: list },
        overlaps: { type: list },
        is: { type: this.filterIs },
      };
    else if (s === 'Opaque') fields = { eq: { type: t }, is: { type: this.filterIs } };
    else if (s === 'Boolean') fields = { eq: { type: t }, is: { type: this.filterIs } };
    else if (s === 'UUID' || typeof s !== 'string')
      fields = { eq: { type: t }, in: { type: list }, is: { type: this.filterIs }, neq: { type: t } };
    else {
      fields = Object.fromEntries(FILTER_OPS_ORDERED.map((op) => [op, { type: op === 'in' ? list : op === 'is' ? this.filterIs : t }]));
      if (s === 'String') {
        for (const op of ['startsWith', 'like', 'ilike', 'regex', 'iregex']) fields[op] = { type: t };
      }
    }
    const f = new GraphQLInputObjectType({
      name,
      description: `Boolean expression comparing fields on type "${base}${isArray ? 'List' : ''}"`,
      fields,
    });
    this.filters.set(name, f);
    return f;
  };

  /** The filter types of the built-in and custom scalars (lists too, but of Opaque): pg_graphql lists them all. */
  standardFilters(): GraphQLInputObjectType[] {
    const kinds: ScalarKind[] = ['BigFloat', 'BigInt', 'Boolean', 'Date', 'Datetime', 'Float', 'Int', 'String', 'Time', 'UUID'];
    return [...kinds.flatMap((s) => [this.filterFor(s, false)!, this.filterFor(s, true)!]), this.filterFor('Opaque', false)!];
  }
}
