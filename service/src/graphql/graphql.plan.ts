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
import { columnFields, lowerFirst, type ColumnField, type FunctionModel, type GraphModel, type TableModel } from './graphql.model';
import { FilterPlanner } from './graphql.filter';
import {
  base64JsonArray,
  gqlError,
  RowBudget,
  type AggregatePlan,
  type CallPlan,
  type ConnectionPlan,
  type Direction,
  type FilterPlan,
  type FunctionPlan,
  type Keyed,
  type MutationFieldPlan,
  type MutationPlan,
  type NodeFieldPlan,
  type NodePlan,
  type OrderItem,
  type QueryPlan,
  type RowCallPlan,
} from './graphql.plan.types';

// The plan step (as pg_graphql's builder.rs): an operation and its variables become typed plans, and every
// GraphQL error is raised here. `graphql.transpile.ts` turns a plan into SQL without looking at the document again.

type Fields = Map<string, FieldNode[]>;

/** Reads one operation's fields into plans, for one role's schema and model. */
export class OperationPlanner {
  /** How many rows the node being planned may stand for: the product of the page sizes it is nested in. */
  private rowsPerNode = 1;
  private readonly filters: FilterPlanner;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly model: GraphModel,
    private readonly variables: Record<string, unknown>,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
    private readonly budget: RowBudget = new RowBudget(Number.POSITIVE_INFINITY),
  ) {
    this.filters = new FilterPlanner(model);
  }

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
      } else if (f.kind === 'computedRelation' && !f.many) {
        const sub = this.subFields(nodes, f.target.typeName);
        out.push([key, { kind: 'computedOne', field: f, node: this.rowsOf(1, () => this.node(f.target, sub)) }]);
      } else {
        const args = this.args(t.typeName, node);
        const source = f.kind === 'computedRelation' ? { fn: f.fn, rowOf: t } : null;
        const join = f.kind === 'computedRelation' ? [] : f.join;
        const connection = this.connection(f.target, source, join, args, this.subFields(nodes, `${f.target.typeName}Connection`));
        out.push([key, { kind: 'toMany', field: f, connection }]);
      }
    }
    return { table: t, withType, fields: out };
  }

  /** The order of a connection: the `orderBy` entries, then the primary key's columns (named again if orderBy named them). */
  order(t: TableModel, orderBy: unknown): OrderItem[] {
    const items: OrderItem[] = [];
    for (const entry of (orderBy as (Record<string, Direction | null> | null)[] | null | undefined) ?? []) {
      // An entry (or a direction) a variable left out orders nothing, as in pg_graphql.
      const keys = Object.keys(entry ?? {}).filter((k) => entry![k] != null);
      if (keys.length === 0) continue;
      if (keys.length !== 1) throw gqlError('Invalid orderBy: each entry must name exactly one field');
      const f = t.fields.get(keys[0]!) as ColumnField | undefined;
      if (!f || f.kind !== 'column') throw gqlError('Invalid orderBy field');
      const dir = entry![keys[0]!]!;
      if (!items.some((i) => i.column === f.column.name)) items.push({ column: f.column.name, sqlType: f.column.sqlType, dir });
    }
    // Always, as pg_graphql: its cursors hold the key's values at the end even when orderBy names them.
    for (const c of t.primaryKey) items.push({ column: c.name, sqlType: c.sqlType, dir: 'AscNullsLast' });
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
    source: CallPlan | RowCallPlan | null,
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
    return this.filters.filter(t, value);
  }

  /** One root query field. */
  queryField(node: FieldNode): QueryPlan {
    const name = node.name.value;
    const args = this.args('Query', node);
    if (name === 'node') {
      const decoded = this.filters.decodeNodeId(args.nodeId as string);
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
