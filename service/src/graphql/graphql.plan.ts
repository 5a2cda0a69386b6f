import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getDirectiveValues,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { getArgumentValues } from 'graphql/execution/values';
import type { RColumn, RFunction } from '../project/project.reflection';
import { AppError } from '../shared/errors';
import {
  columnFields,
  lowerFirst,
  type ColumnField,
  type ComputedField,
  type FunctionModel,
  type GraphModel,
  type RelationField,
  type ScalarKind,
  type TableModel,
} from './graphql.model';

// The plan step (as pg_graphql's builder.rs): an operation and its variables become typed plans, and every
// GraphQL error is raised here. `graphql.transpile.ts` turns a plan into SQL without looking at the document again.

/** A request error shown to the client as a GraphQL error message. */
export const gqlError = (message: string) => new AppError('validation_failed', message);

/** A value of the response, under its response key (alias or field name), in selection order. */
export type Keyed<T> = [key: string, plan: T][];

/** How a page is ordered on one column. */
export type Direction = 'AscNullsFirst' | 'AscNullsLast' | 'DescNullsFirst' | 'DescNullsLast';

/** One column of a connection's order (the primary key always ends it, so the order is total). */
export interface OrderItem {
  column: string;
  sqlType: string;
  dir: Direction;
}

/** The opposite direction: reading a page backwards. */
export const REVERSED: Record<Direction, Direction> = {
  AscNullsFirst: 'DescNullsLast',
  AscNullsLast: 'DescNullsFirst',
  DescNullsFirst: 'AscNullsLast',
  DescNullsLast: 'AscNullsFirst',
};

/** A condition of a filter: a tree of and/or/not over column comparisons. */
export type FilterPlan =
  | { kind: 'and' | 'or'; parts: FilterPlan[] }
  | { kind: 'not'; inner: FilterPlan }
  | { kind: 'const'; value: boolean }
  | { kind: 'keyEquals'; keys: { column: RColumn; value: unknown }[] }
  | { kind: 'isNull'; column: RColumn; isNull: boolean }
  | { kind: 'compare'; column: RColumn; op: '=' | '<>' | '<' | '<=' | '>' | '>='; value: unknown }
  | { kind: 'text'; column: RColumn; op: 'like' | 'ilike' | '~' | '~*' | 'startsWith'; value: unknown }
  | { kind: 'in'; column: RColumn; values: unknown[] }
  | { kind: 'array'; column: RColumn; op: '@>' | '<@' | '&&' | '='; value: unknown };

/** A function called with named arguments (values as the request gave them). */
export interface CallPlan {
  fn: RFunction;
  args: { sqlName: string; value: unknown; sqlType: string; isArray: boolean }[];
}

/** One row of a table as a JSON object. */
export interface NodePlan {
  table: TableModel;
  /** Adds the row's type name, for `node` lookups whose type the answer must name. */
  withType: boolean;
  fields: Keyed<NodeFieldPlan>;
}

/** A field of a row. */
export type NodeFieldPlan =
  | { kind: 'nodeId' }
  | { kind: 'column'; field: ColumnField }
  | { kind: 'computed'; field: ComputedField }
  | { kind: 'toOne'; field: RelationField; node: NodePlan }
  | { kind: 'toMany'; field: RelationField; connection: ConnectionPlan };

/** An aggregate of a connection's filtered rows. */
export type AggregatePlan = { fn: 'count' } | { fn: 'sum' | 'avg' | 'min' | 'max'; columns: Keyed<ColumnField> };

/** A field of a connection. */
export type ConnectionFieldPlan =
  | { kind: 'edges'; fields: Keyed<{ kind: 'cursor' } | { kind: 'node'; node: NodePlan }> }
  | { kind: 'pageInfo'; fields: Keyed<'hasNextPage' | 'hasPreviousPage' | 'startCursor' | 'endCursor'> }
  | { kind: 'aggregate'; fields: Keyed<AggregatePlan> }
  | { kind: 'totalCount' };

/** A keyset-paginated page of a table's rows (or of a set-returning function's), with what was asked of it. */
export interface ConnectionPlan {
  table: TableModel;
  /** Rows come from this call instead of the table. */
  source: CallPlan | null;
  /** (column of the outer row, column of this table) pairs, for a relation's connection. */
  join: [string, string][];
  filter: FilterPlan | null;
  order: OrderItem[];
  backward: boolean;
  limit: number;
  offset: number;
  /** Decoded cursors: the order's values of the row to start after (or before). */
  after: unknown[] | null;
  before: unknown[] | null;
  fields: Keyed<ConnectionFieldPlan>;
}

/** A function exposed as a root field and what its result becomes. */
export interface FunctionPlan {
  call: CallPlan;
  result:
    | { kind: 'connection'; connection: ConnectionPlan }
    | { kind: 'node'; node: NodePlan }
    | { kind: 'scalar'; scalar: ScalarKind; isArray: boolean };
}

/** A root field of a query. */
export type QueryPlan =
  | { kind: 'none' }
  | { kind: 'row'; node: NodePlan; keys: { column: RColumn; value: unknown }[] }
  | { kind: 'connection'; connection: ConnectionPlan }
  | { kind: 'function'; function: FunctionPlan };

/** What a mutation's response selects. */
export type MutationFieldPlan = { kind: 'affectedCount' } | { kind: 'records'; node: NodePlan };

/** A root field of a mutation: one statement. */
export type MutationPlan =
  | { kind: 'function'; function: FunctionPlan }
  | {
      kind: 'insert';
      table: TableModel;
      columns: ColumnField[];
      /** Per row, a value per column; undefined means the column's default. */
      rows: unknown[][];
      fields: Keyed<MutationFieldPlan>;
    }
  | {
      kind: 'update';
      table: TableModel;
      set: [ColumnField, unknown][];
      filter: FilterPlan | null;
      atMost: number;
      fields: Keyed<MutationFieldPlan>;
    }
  | { kind: 'delete'; table: TableModel; filter: FilterPlan | null; atMost: number; fields: Keyed<MutationFieldPlan> };

type Fields = Map<string, FieldNode[]>;

/** The rows one request may return, counted while it is planned: pages times the rows they are nested in. */
export class RowBudget {
  private total = 0;

  constructor(readonly maxRows: number) {}

  /** Counts `rows` more; refuses the request once the total passes the limit. */
  spend(rows: number): void {
    this.total += rows;
    if (this.total > this.maxRows) {
      throw gqlError(`Query may return more than ${this.maxRows} rows: ask nested collections for fewer with first or last`);
    }
  }
}

const COMPARE = { eq: '=', neq: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
const TEXT = { like: 'like', ilike: 'ilike', regex: '~', iregex: '~*', startsWith: 'startsWith' } as const;
const ARRAY = { contains: '@>', containedBy: '<@', overlaps: '&&', eq: '=' } as const;

/**
 * Decodes the base64 JSON array of a cursor or a node id; on failure, the step that failed, numbered as pg_graphql
 * numbers them: 1 not base64, 2 not UTF-8, 3 not JSON, 4 not an array.
 */
export function base64JsonArray(text: string): unknown[] | 1 | 2 | 3 | 4 {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return 1;
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64'));
  } catch {
    return 2;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return 3;
  }
  return Array.isArray(parsed) ? parsed : 4;
}

/** Reads one operation's fields into plans, for one role's schema and model. */
export class OperationPlanner {
  /** How many rows the node being planned may stand for: the product of the page sizes it is nested in. */
  private rowsPerNode = 1;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly model: GraphModel,
    private readonly variables: Record<string, unknown>,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
    private readonly budget: RowBudget = new RowBudget(Number.POSITIVE_INFINITY),
  ) {}

  /** Plans the rows of a page (or a record list) of at most `rows` rows for each row it is nested in. */
  private rowsOf<T>(rows: number, build: () => T): T {
    const outer = this.rowsPerNode;
    this.rowsPerNode = outer * rows;
    this.budget.spend(this.rowsPerNode);
    try {
      return build();
    } finally {
      this.rowsPerNode = outer;
    }
  }

  /** Groups a selection set's fields by response key, following fragments and @skip/@include. */
  collect(selectionSet: SelectionSetNode | undefined, typeName: string, out: Fields = new Map(), seen = new Set<string>()): Fields {
    for (const sel of selectionSet?.selections ?? []) {
      if (getDirectiveValues(GraphQLSkipDirective, sel, this.variables)?.if === true) continue;
      if (getDirectiveValues(GraphQLIncludeDirective, sel, this.variables)?.if === false) continue;
      if (sel.kind === 'Field') {
        const key = sel.alias?.value ?? sel.name.value;
        out.set(key, [...(out.get(key) ?? []), sel]);
      } else if (sel.kind === 'InlineFragment') {
        if (!sel.typeCondition || this.applies(sel.typeCondition.name.value, typeName)) this.collect(sel.selectionSet, typeName, out, seen);
      } else {
        const frag = this.fragments[sel.name.value];
        if (!frag || seen.has(frag.name.value) || !this.applies(frag.typeCondition.name.value, typeName)) continue;
        seen.add(frag.name.value);
        this.collect(frag.selectionSet, typeName, out, seen);
      }
    }
    return out;
  }

  private applies(condition: string, typeName: string): boolean {
    return condition === typeName || (condition === 'Node' && this.model.byTypeName.has(typeName));
  }

  private subFields(nodes: FieldNode[], typeName: string): Fields {
    const out: Fields = new Map();
    for (const n of nodes) this.collect(n.selectionSet, typeName, out);
    return out;
  }

  private args(parentType: string, node: FieldNode): Record<string, unknown> {
    const type = this.schema.getType(parentType) as GraphQLObjectType;
    const def = type.getFields()[node.name.value] as GraphQLField<unknown, unknown>;
    return getArgumentValues(def, node, this.variables) as Record<string, unknown>;
  }

  /** A row of `t` with the fields selected by `fields`. */
  node(t: TableModel, fields: Fields, withType = false): NodePlan {
    const out: Keyed<NodeFieldPlan> = [];
    for (const [key, nodes] of fields) {
      const node = nodes[0]!;
      const name = node.name.value;
      if (name === '__typename') continue;
      if (name === 'nodeId') {
        out.push([key, { kind: 'nodeId' }]);
        continue;
      }
      const f = t.fields.get(name);
      if (!f) throw gqlError(`Unknown field "${name}" on type ${t.typeName}`);
      if (f.kind === 'column') out.push([key, { kind: 'column', field: f }]);
      else if (f.kind === 'computed') out.push([key, { kind: 'computed', field: f }]);
      else if (f.kind === 'toOne') {
        const sub = this.subFields(nodes, f.target.typeName);
        out.push([key, { kind: 'toOne', field: f, node: this.rowsOf(1, () => this.node(f.target, sub)) }]);
      } else {
        const args = this.args(t.typeName, node);
        const connection = this.connection(f.target, null, f.join, args, this.subFields(nodes, `${f.target.typeName}Connection`));
        out.push([key, { kind: 'toMany', field: f, connection }]);
      }
    }
    return { table: t, withType, fields: out };
  }

  /** The order of a connection: the `orderBy` entries, then the primary key's columns not named yet. */
  order(t: TableModel, orderBy: unknown): OrderItem[] {
    const items: OrderItem[] = [];
    for (const entry of (orderBy as Record<string, Direction>[] | null | undefined) ?? []) {
      const keys = Object.keys(entry);
      if (keys.length !== 1) throw gqlError('Invalid orderBy: each entry must name exactly one field');
      const f = t.fields.get(keys[0]!) as ColumnField | undefined;
      if (!f || f.kind !== 'column') throw gqlError('Invalid orderBy field');
      const dir = entry[keys[0]!]!;
      if (!items.some((i) => i.column === f.column.name)) items.push({ column: f.column.name, sqlType: f.column.sqlType, dir });
    }
    for (const c of t.primaryKey) {
      if (!items.some((i) => i.column === c.name)) items.push({ column: c.name, sqlType: c.sqlType, dir: 'AscNullsLast' });
    }
    return items;
  }

  private cursor(text: string, order: OrderItem[]): unknown[] {
    const values = base64JsonArray(text);
    if (typeof values === 'number') throw gqlError(`Failed to decode cursor, error ${values}`);
    if (values.length !== order.length) throw gqlError('orderBy clause incompatible with pagination cursor');
    return values;
  }

  private intArg(args: Record<string, unknown>, name: string): number | undefined {
    const v = args[name];
    if (v === null || v === undefined) return undefined;
    if (typeof v !== 'number' || v < 0) throw gqlError(`\`${name}\` must be an unsigned integer`);
    return v;
  }

  /** A connection over rows of `t` (from `source` when a function yields them), read from its arguments and selection. */
  connection(
    t: TableModel,
    source: CallPlan | null,
    join: [string, string][],
    args: Record<string, unknown>,
    fields: Fields,
  ): ConnectionPlan {
    const first = this.intArg(args, 'first');
    const last = this.intArg(args, 'last');
    const offset = this.intArg(args, 'offset') ?? 0;
    const after = args.after as string | null | undefined;
    const before = args.before as string | null | undefined;
    // pg_graphql's rules, in its order: one direction per page.
    if (first !== undefined && last !== undefined) throw gqlError('only one of "first" and "last" may be provided');
    if (before != null && after != null) throw gqlError('only one of "before" and "after" may be provided');
    if (first !== undefined && before != null) throw gqlError('"first" may only be used with "after"');
    if (last !== undefined && after != null) throw gqlError('"last" may only be used with "before"');
    const backward = last !== undefined || before != null;
    if (backward && args.offset != null) throw gqlError('"offset" may only be used with "first" and "after"');
    const limit = Math.min(first ?? last ?? t.maxRows, t.maxRows);
    const order = this.order(t, args.orderBy);
    const filter = this.filter(t, args.filter);
    const plan: ConnectionPlan = {
      table: t,
      source,
      join,
      filter,
      order,
      backward,
      limit,
      offset,
      after: after != null ? this.cursor(after, order) : null,
      before: before != null ? this.cursor(before, order) : null,
      fields: [],
    };
    for (const [key, nodes] of fields) {
      const name = nodes[0]!.name.value;
      if (name === 'edges') {
        const edge: Keyed<{ kind: 'cursor' } | { kind: 'node'; node: NodePlan }> = [];
        for (const [ek, en] of this.subFields(nodes, `${t.typeName}Edge`)) {
          const en0 = en[0]!.name.value;
          if (en0 === 'cursor') edge.push([ek, { kind: 'cursor' }]);
          else if (en0 === 'node')
            edge.push([ek, { kind: 'node', node: this.rowsOf(limit, () => this.node(t, this.subFields(en, t.typeName))) }]);
        }
        plan.fields.push([key, { kind: 'edges', fields: edge }]);
      } else if (name === 'pageInfo') {
        const info: Keyed<'hasNextPage' | 'hasPreviousPage' | 'startCursor' | 'endCursor'> = [];
        for (const [pk, pn] of this.subFields(nodes, 'PageInfo')) {
          const pname = pn[0]!.name.value;
          if (pname === 'hasNextPage' || pname === 'hasPreviousPage' || pname === 'startCursor' || pname === 'endCursor')
            info.push([pk, pname]);
        }
        plan.fields.push([key, { kind: 'pageInfo', fields: info }]);
      } else if (name === 'aggregate') {
        const parts: Keyed<AggregatePlan> = [];
        for (const [ak, an] of this.subFields(nodes, `${t.typeName}Aggregate`)) {
          const fn = an[0]!.name.value;
          if (fn === 'count') parts.push([ak, { fn: 'count' }]);
          if (fn !== 'sum' && fn !== 'avg' && fn !== 'min' && fn !== 'max') continue;
          const kind = fn[0]!.toUpperCase() + fn.slice(1);
          const columns: Keyed<ColumnField> = [];
          for (const [ck, cn] of this.subFields(an, `${t.typeName}${kind}AggregateResult`)) {
            const f = t.fields.get(cn[0]!.name.value);
            if (f?.kind === 'column') columns.push([ck, f]);
          }
          parts.push([ak, { fn, columns }]);
        }
        plan.fields.push([key, { kind: 'aggregate', fields: parts }]);
      } else if (name === 'totalCount') plan.fields.push([key, { kind: 'totalCount' }]);
    }
    return plan;
  }

  /** The condition of a `<Table>Filter` value, or null when it filters nothing. */
  filter(t: TableModel, value: unknown): FilterPlan | null {
    if (value === null || value === undefined) return null;
    const conds: FilterPlan[] = [];
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === null || v === undefined) continue;
      const column = t.fields.get(key);
      if (column?.kind === 'column') conds.push(...this.columnConditions(column, v as Record<string, unknown>));
      else if (key === 'and' || key === 'or') {
        const parts = (v as unknown[]).map((x) => this.filter(t, x) ?? { kind: 'const' as const, value: true });
        if (parts.length > 0) conds.push({ kind: key, parts });
      } else if (key === 'not') {
        const inner = this.filter(t, v);
        if (inner) conds.push({ kind: 'not', inner });
      } else if (key === 'nodeId') {
        const eq = (v as { eq?: string | null }).eq;
        if (eq != null) {
          const decoded = this.decodeNodeId(eq);
          if (decoded?.table !== t) throw gqlError('nodeId belongs to a different collection');
          conds.push({ kind: 'keyEquals', keys: decoded.keys });
        }
      } else throw gqlError(`Unknown filter field "${key}"`);
    }
    if (conds.length === 0) return null;
    return conds.length === 1 ? conds[0]! : { kind: 'and', parts: conds };
  }

  private columnConditions(f: ColumnField, ops: Record<string, unknown>): FilterPlan[] {
    const column = f.column;
    const out: FilterPlan[] = [];
    for (const [op, value] of Object.entries(ops)) {
      if (value === null || value === undefined) continue;
      if (op === 'is') out.push({ kind: 'isNull', column, isNull: value === 'NULL' });
      else if (f.isArray) {
        if (!(op in ARRAY)) throw gqlError(`Unknown filter operator "${op}"`);
        out.push({ kind: 'array', column, op: ARRAY[op as keyof typeof ARRAY], value });
      } else if (op === 'in') out.push({ kind: 'in', column, values: value as unknown[] });
      else if (op in TEXT) out.push({ kind: 'text', column, op: TEXT[op as keyof typeof TEXT], value });
      else if (op in COMPARE) out.push({ kind: 'compare', column, op: COMPARE[op as keyof typeof COMPARE], value });
      else throw gqlError(`Unknown filter operator "${op}"`);
    }
    return out;
  }

  /** The table and primary-key values a node id names (null for a table this role cannot see). */
  decodeNodeId(nodeId: string): { table: TableModel; keys: { column: RColumn; value: unknown }[] } | null {
    const parts = base64JsonArray(nodeId);
    // pg_graphql's numbers: base64 2, UTF-8 3, JSON 4 (an array is asked for later), too short 5, names 6 and 7.
    if (typeof parts === 'number') throw gqlError(`Invalid value passed to nodeId argument. Error ${Math.min(parts + 1, 5)}`);
    if (parts.length < 3) throw gqlError('Invalid value passed to nodeId argument. Error 5');
    if (typeof parts[0] !== 'string') throw gqlError('Invalid value passed to nodeId argument. Error 6');
    if (typeof parts[1] !== 'string') throw gqlError('Invalid value passed to nodeId argument. Error 7');
    const table = this.model.tables.find((x) => x.table.schema === parts[0] && x.table.name === parts[1]);
    if (!table) return null;
    if (parts.length - 2 !== table.primaryKey.length) throw gqlError('Invalid value passed to nodeId argument');
    return { table, keys: table.primaryKey.map((column, i) => ({ column, value: parts[i + 2] })) };
  }

  /** One root query field. */
  queryField(node: FieldNode): QueryPlan {
    const name = node.name.value;
    const args = this.args('Query', node);
    if (name === 'node') {
      const decoded = this.decodeNodeId(args.nodeId as string);
      if (!decoded) return { kind: 'none' };
      const { table } = decoded;
      const one = this.rowsOf(1, () => this.node(table, this.subFields([node], table.typeName), true));
      return { kind: 'row', node: one, keys: decoded.keys };
    }
    const byPk = this.model.tables.find((x) => `${lowerFirst(x.typeName)}ByPk` === name);
    if (byPk) {
      const keys = byPk.primaryKey.map((column) => {
        const f = columnFields(byPk).find((x) => x.column.name === column.name)!;
        return { column, value: args[f.name] };
      });
      return { kind: 'row', node: this.rowsOf(1, () => this.node(byPk, this.subFields([node], byPk.typeName))), keys };
    }
    const t = this.model.tables.find((x) => x.collectionName === name);
    if (t) return { kind: 'connection', connection: this.connection(t, null, [], args, this.subFields([node], `${t.typeName}Connection`)) };
    const fn = this.model.functions.find((f) => f.name === name && !f.mutation);
    if (fn) return { kind: 'function', function: this.functionCall(fn, node, args) };
    throw gqlError(`Unknown field "${name}" on type Query`);
  }

  private functionCall(fn: FunctionModel, node: FieldNode, args: Record<string, unknown>): FunctionPlan {
    const call: CallPlan = {
      fn: fn.fn,
      args: fn.args
        .map((a, i) => ({ sqlName: fn.fn.argNames[i]!, value: args[a.name], sqlType: a.sqlType, isArray: a.isArray }))
        .filter((a) => a.value !== undefined),
    };
    if ('table' in fn.returns) {
      const t = fn.returns.table;
      if (fn.fn.returnsSet) {
        return {
          call,
          result: { kind: 'connection', connection: this.connection(t, call, [], args, this.subFields([node], `${t.typeName}Connection`)) },
        };
      }
      return { call, result: { kind: 'node', node: this.rowsOf(1, () => this.node(t, this.subFields([node], t.typeName))) } };
    }
    return { call, result: { kind: 'scalar', scalar: fn.returns.scalar, isArray: fn.returns.isArray } };
  }

  /** One root mutation field. */
  mutationField(node: FieldNode): MutationPlan {
    const name = node.name.value;
    const args = this.args('Mutation', node);
    const fn = this.model.functions.find((f) => f.name === name && f.mutation);
    if (fn) return { kind: 'function', function: this.functionCall(fn, node, args) };
    const match = /^(insertInto|update|deleteFrom)(.+)Collection$/.exec(name);
    const t = match && this.model.byTypeName.get(match[2]!);
    if (!match || !t) throw gqlError(`Unknown field "${name}" on type Mutation`);
    const verb = match[1]!;
    const response = `${t.typeName}${verb === 'insertInto' ? 'Insert' : verb === 'update' ? 'Update' : 'Delete'}Response`;
    if (verb === 'insertInto') {
      const objects = args.objects as Record<string, unknown>[];
      if (objects.length === 0) throw gqlError('At least one record must be provided to objects');
      const columns = columnFields(t).filter((c) => objects.some((o) => o[c.name] !== undefined));
      if (columns.length === 0) throw gqlError('Each record must set at least one field');
      const rows = objects.map((o) => columns.map((c) => o[c.name]));
      return { kind: 'insert', table: t, columns, rows, fields: this.mutationFields(t, response, node, objects.length) };
    }
    const atMost = args.atMost as number;
    if (verb === 'update') {
      const given = args.set as Record<string, unknown>;
      const set = columnFields(t)
        .filter((c) => given[c.name] !== undefined)
        .map((c) => [c, given[c.name]] as [ColumnField, unknown]);
      if (set.length === 0) throw gqlError('At least one mapping must be provided to set argument');
      const filter = this.filter(t, args.filter);
      return { kind: 'update', table: t, set, filter, atMost, fields: this.mutationFields(t, response, node, atMost) };
    }
    const filter = this.filter(t, args.filter);
    return { kind: 'delete', table: t, filter, atMost, fields: this.mutationFields(t, response, node, atMost) };
  }

  private mutationFields(t: TableModel, response: string, node: FieldNode, records: number): Keyed<MutationFieldPlan> {
    const out: Keyed<MutationFieldPlan> = [];
    for (const [key, nodes] of this.subFields([node], response)) {
      const fname = nodes[0]!.name.value;
      if (fname === 'affectedCount') out.push([key, { kind: 'affectedCount' }]);
      else if (fname === 'records')
        out.push([key, { kind: 'records', node: this.rowsOf(records, () => this.node(t, this.subFields(nodes, t.typeName))) }]);
    }
    return out;
  }
}
