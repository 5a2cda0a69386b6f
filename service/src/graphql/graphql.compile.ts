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
import { AppError } from '../shared/errors';
import {
  columnFields,
  lowerFirst,
  type ColumnField,
  type FunctionModel,
  type GraphModel,
  type ScalarKind,
  type TableModel,
} from './graphql.model';
import { TYPE_KEY } from './graphql.schema';

/** A request error shown to the client as a GraphQL error message. */
export const gqlError = (message: string) => new AppError('validation_failed', message);

/** A statement and its parameters; every value from a request is a parameter, identifiers come from the catalog. */
export interface CompiledSql {
  sql: string;
  params: (string | null)[];
}

/** Quotes an identifier taken from the catalog. */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const tableRef = (t: TableModel) => `${ident(t.table.schema)}.${ident(t.table.name)}`;

type Fields = Map<string, FieldNode[]>;
type Direction = 'AscNullsFirst' | 'AscNullsLast' | 'DescNullsFirst' | 'DescNullsLast';
interface OrderItem {
  column: string;
  sqlType: string;
  dir: Direction;
}

const REVERSED: Record<Direction, Direction> = {
  AscNullsFirst: 'DescNullsLast',
  AscNullsLast: 'DescNullsFirst',
  DescNullsFirst: 'AscNullsLast',
  DescNullsLast: 'AscNullsFirst',
};
const ORDER_SQL: Record<Direction, string> = {
  AscNullsFirst: 'asc nulls first',
  AscNullsLast: 'asc nulls last',
  DescNullsFirst: 'desc nulls first',
  DescNullsLast: 'desc nulls last',
};

/** Base64 of the JSON text of a jsonb array, as pg_graphql encodes cursors and node ids. */
const base64Json = (arrayExpr: string) => `translate(encode(convert_to((${arrayExpr})::text, 'UTF8'), 'base64'), E'\\n', '')`;

/** The rows one request may return, counted while its statements are compiled: pages times the rows they are nested in. */
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

/** Turns one GraphQL operation's data fields into SQL, for one role's schema and model. */
export class Compiler {
  readonly params: (string | null)[] = [];
  private aliases = 0;
  /** How many rows the node being compiled may stand for: the product of the page sizes it is nested in. */
  private rowsPerNode = 1;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly model: GraphModel,
    private readonly variables: Record<string, unknown>,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
    private readonly budget: RowBudget = new RowBudget(Number.POSITIVE_INFINITY),
  ) {}

  /** Builds the rows of a page (or a record list) of at most `rows` rows for each row it is nested in. */
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

  private param(value: string | null, cast: string): string {
    this.params.push(value);
    return `$${this.params.length}::${cast}`;
  }

  private alias(): string {
    this.aliases += 1;
    return `t${this.aliases}`;
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

  /** jsonb_build_object over key/expression pairs, in chunks under Postgres's 100-argument limit. */
  private object(entries: [string, string][]): string {
    if (entries.length === 0) return `'{}'::jsonb`;
    const chunks: string[] = [];
    for (let i = 0; i < entries.length; i += 40) {
      const part = entries.slice(i, i + 40).map(([k, v]) => `${this.param(k, 'text')}, ${v}`);
      chunks.push(`jsonb_build_object(${part.join(', ')})`);
    }
    return chunks.join(' || ');
  }

  private textValue(value: unknown): string | null {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
    return JSON.stringify(value);
  }

  /** A parameter holding a GraphQL input value for a column (arrays as a JSON list cast to the column's array type). */
  private valueParam(value: unknown, sqlType: string, isArray: boolean): string {
    if (isArray) {
      if (value === null) return `null::${sqlType}`;
      const list = (Array.isArray(value) ? value : [value]).map((v) => this.textValue(v));
      return `array(select jsonb_array_elements_text(${this.param(JSON.stringify(list), 'jsonb')}))::${sqlType}`;
    }
    return this.param(this.textValue(value), sqlType);
  }

  private valueExpr(ref: string, scalar: ScalarKind, isArray: boolean): string {
    const asText = scalar === 'BigInt' || scalar === 'BigFloat' || scalar === 'JSON';
    if (!asText) return ref;
    if (!isArray) return `(${ref})::text`;
    return `(case when ${ref} is null then null else coalesce((select jsonb_agg(e::text order by i) from unnest(${ref}) with ordinality u(e, i)), '[]'::jsonb) end)`;
  }

  private nodeIdExpr(t: TableModel, a: string): string {
    const pk = t.primaryKey.map((c) => `${a}.${ident(c.name)}`).join(', ');
    return base64Json(`jsonb_build_array(${this.param(t.table.schema, 'text')}, ${this.param(t.table.name, 'text')}, ${pk})`);
  }

  /** The jsonb of one row of `t` under alias `a`, with the selected fields keyed by response key. */
  private nodeExpr(t: TableModel, a: string, fields: Fields, withType = false): string {
    const entries: [string, string][] = [];
    if (withType) entries.push([TYPE_KEY, this.param(t.typeName, 'text')]);
    for (const [key, nodes] of fields) {
      const node = nodes[0]!;
      const name = node.name.value;
      if (name === '__typename') continue;
      if (name === 'nodeId') {
        entries.push([key, this.nodeIdExpr(t, a)]);
        continue;
      }
      const f = t.fields.get(name);
      if (!f) throw gqlError(`Unknown field "${name}" on type ${t.typeName}`);
      if (f.kind === 'column') entries.push([key, this.valueExpr(`${a}.${ident(f.column.name)}`, f.scalar, f.isArray)]);
      else if (f.kind === 'computed') {
        const b = this.alias();
        const call = `${ident(f.fn.schema)}.${ident(f.fn.name)}(${b})`;
        entries.push([key, `(select ${this.valueExpr(call, f.scalar, f.isArray)} from ${tableRef(t)} ${b} where ${this.pkJoin(t, b, a)})`]);
      } else if (f.kind === 'toOne') {
        const b = this.alias();
        const on = f.join.map(([mine, theirs]) => `${b}.${ident(theirs)} = ${a}.${ident(mine)}`).join(' and ');
        const sub = this.subFields(nodes, f.target.typeName);
        const one = this.rowsOf(1, () => this.nodeExpr(f.target, b, sub));
        entries.push([key, `(select ${one} from ${tableRef(f.target)} ${b} where ${on} limit 1)`]);
      } else {
        const args = this.args(t.typeName, node);
        const join = (b: string) => f.join.map(([mine, theirs]) => `${b}.${ident(theirs)} = ${a}.${ident(mine)}`);
        entries.push([
          key,
          this.connection(f.target, tableRef(f.target), args, this.subFields(nodes, `${f.target.typeName}Connection`), join),
        ]);
      }
    }
    return this.object(entries);
  }

  private pkJoin(t: TableModel, b: string, a: string): string {
    return t.primaryKey.map((c) => `${b}.${ident(c.name)} = ${a}.${ident(c.name)}`).join(' and ');
  }

  private orderOf(t: TableModel, orderBy: unknown): OrderItem[] {
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

  /** Rows strictly after the cursor's position in the order `items` (null-safe, stable under ties thanks to the primary key). */
  private afterCursor(items: OrderItem[], cursor: string, a: string): string {
    let values: unknown;
    try {
      values = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8'));
    } catch {
      throw gqlError('Invalid cursor');
    }
    if (!Array.isArray(values) || values.length !== items.length) throw gqlError('Invalid cursor');
    const params = items.map((it, i) => this.param(this.textValue(values[i]), it.sqlType));
    const ors = items.map((it, i) => {
      const ref = `${a}.${ident(it.column)}`;
      const p = params[i]!;
      const eq = items.slice(0, i).map((prev, j) => `${a}.${ident(prev.column)} is not distinct from ${params[j]}`);
      const after = {
        AscNullsLast: `(${p} is not null and (${ref} > ${p} or ${ref} is null))`,
        AscNullsFirst: `((${p} is null and ${ref} is not null) or ${ref} > ${p})`,
        DescNullsFirst: `((${p} is null and ${ref} is not null) or ${ref} < ${p})`,
        DescNullsLast: `(${p} is not null and (${ref} < ${p} or ${ref} is null))`,
      }[it.dir];
      return `(${[...eq, after].join(' and ')})`;
    });
    return `(${ors.join(' or ')})`;
  }

  private intArg(args: Record<string, unknown>, name: string): number | undefined {
    const v = args[name];
    if (v === null || v === undefined) return undefined;
    if (typeof v !== 'number' || v < 0) throw gqlError(`"${name}" must be a non-negative integer`);
    return v;
  }

  /** A connection (edges, pageInfo, totalCount) over `source` rows of `t`, keyset-paginated. */
  private connection(
    t: TableModel,
    source: string,
    args: Record<string, unknown>,
    fields: Fields,
    join: (alias: string) => string[],
  ): string {
    const first = this.intArg(args, 'first');
    const last = this.intArg(args, 'last');
    const offset = this.intArg(args, 'offset') ?? 0;
    const after = args.after as string | null | undefined;
    const before = args.before as string | null | undefined;
    if (first !== undefined && last !== undefined) throw gqlError('"first" and "last" may not be used together');
    const backward = last !== undefined || (before != null && first === undefined);
    if (backward && offset > 0) throw gqlError('"offset" is not supported with backward pagination');
    const limit = Math.min(first ?? last ?? t.maxRows, t.maxRows);
    const order = this.orderOf(t, args.orderBy);
    const effective = backward ? order.map((o) => ({ ...o, dir: REVERSED[o.dir] })) : order;
    const b = this.alias();
    const where = (x: string) => {
      const conds = [...join(x)];
      const f = this.filter(t, args.filter, x);
      if (f) conds.push(f);
      return conds;
    };
    const conds = where(b);
    if (after != null) conds.push(this.afterCursor(order, after, b));
    if (before != null)
      conds.push(
        this.afterCursor(
          order.map((o) => ({ ...o, dir: REVERSED[o.dir] })),
          before,
          b,
        ),
      );
    const cols = columnFields(t)
      .map((c) => `${b}.${ident(c.column.name)}`)
      .join(', ');
    const orderSql = effective.map((o) => `${b}.${ident(o.column)} ${ORDER_SQL[o.dir]}`).join(', ');
    const L = this.param(String(limit), 'int');
    const inner =
      `select ${cols} from ${source} ${b}${conds.length ? ` where ${conds.join(' and ')}` : ''} order by ${orderSql}` +
      ` limit ${L} + 1 offset ${this.param(String(offset), 'int')}`;
    const n = `${b}."__svc_n"`;
    const ord = backward ? `${n} desc` : n;
    const ordRev = backward ? n : `${n} desc`;
    const cursor = () => base64Json(`jsonb_build_array(${order.map((o) => `${b}.${ident(o.column)}`).join(', ')})`);
    const entries: [string, string][] = [];
    for (const [key, nodes] of fields) {
      const name = nodes[0]!.name.value;
      if (name === 'edges') {
        const edgeFields = this.subFields(nodes, `${t.typeName}Edge`);
        const edge: [string, string][] = [];
        for (const [ek, en] of edgeFields) {
          const en0 = en[0]!.name.value;
          if (en0 === 'cursor') edge.push([ek, cursor()]);
          else if (en0 === 'node') edge.push([ek, this.rowsOf(limit, () => this.nodeExpr(t, b, this.subFields(en, t.typeName)))]);
        }
        entries.push([key, `coalesce(jsonb_agg(${this.object(edge)} order by ${ord}) filter (where ${n} <= ${L}), '[]'::jsonb)`]);
      } else if (name === 'pageInfo') {
        const info: [string, string][] = [];
        for (const [pk, pn] of this.subFields(nodes, 'PageInfo')) {
          const pname = pn[0]!.name.value;
          if (pname === 'hasNextPage') info.push([pk, backward ? String(before != null) : `count(*) > ${L}`]);
          else if (pname === 'hasPreviousPage') info.push([pk, backward ? `count(*) > ${L}` : String(after != null || offset > 0)]);
          else if (pname === 'startCursor') info.push([pk, `(array_agg(${cursor()} order by ${ord}) filter (where ${n} <= ${L}))[1]`]);
          else if (pname === 'endCursor') info.push([pk, `(array_agg(${cursor()} order by ${ordRev}) filter (where ${n} <= ${L}))[1]`]);
        }
        entries.push([key, this.object(info)]);
      } else if (name === 'aggregate') {
        const c = this.alias();
        const cc = where(c);
        const parts: [string, string][] = [];
        for (const [ak, an] of this.subFields(nodes, `${t.typeName}Aggregate`)) {
          const fn = an[0]!.name.value;
          if (fn === 'count') {
            parts.push([ak, 'count(*)::int']);
            continue;
          }
          if (!['sum', 'avg', 'min', 'max'].includes(fn)) continue;
          const kind = fn[0]!.toUpperCase() + fn.slice(1);
          const cols: [string, string][] = [];
          for (const [ck, cn] of this.subFields(an, `${t.typeName}${kind}AggregateResult`)) {
            const f = t.fields.get(cn[0]!.name.value);
            if (!f || f.kind !== 'column') continue;
            const ref = `${c}.${ident(f.column.name)}`;
            cols.push([ck, fn === 'sum' || fn === 'avg' ? `(${fn}(${ref}))::text` : this.valueExpr(`${fn}(${ref})`, f.scalar, false)]);
          }
          parts.push([ak, this.object(cols)]);
        }
        entries.push([key, `(select ${this.object(parts)} from ${source} ${c}${cc.length ? ` where ${cc.join(' and ')}` : ''})`]);
      } else if (name === 'totalCount') {
        const c = this.alias();
        const cc = where(c);
        entries.push([key, `(select count(*) from ${source} ${c}${cc.length ? ` where ${cc.join(' and ')}` : ''})::int`]);
      }
    }
    // group by (): one row even when only uncorrelated fields (totalCount) are selected.
    return `(select ${this.object(entries)} from (select x.*, row_number() over () as "__svc_n" from (${inner}) x) ${b} group by ())`;
  }

  /** The SQL condition of a `<Table>Filter` value, or null when it filters nothing. */
  private filter(t: TableModel, value: unknown, a: string): string | null {
    if (value === null || value === undefined) return null;
    const conds: string[] = [];
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === null || v === undefined) continue;
      if (key === 'and' || key === 'or') {
        const parts = (v as unknown[]).map((x) => this.filter(t, x, a) ?? 'true');
        if (parts.length > 0) conds.push(`(${parts.join(key === 'and' ? ' and ' : ' or ')})`);
      } else if (key === 'not') {
        const inner = this.filter(t, v, a);
        if (inner) conds.push(`not (${inner})`);
      } else if (key === 'nodeId') {
        const eq = (v as { eq?: string | null }).eq;
        if (eq != null) conds.push(this.nodeIdCondition(t, eq, a) ?? 'false');
      } else {
        const f = t.fields.get(key);
        if (!f || f.kind !== 'column') throw gqlError(`Unknown filter field "${key}"`);
        conds.push(...this.columnConditions(f, v as Record<string, unknown>, a));
      }
    }
    return conds.length ? conds.join(' and ') : null;
  }

  private columnConditions(f: ColumnField, ops: Record<string, unknown>, a: string): string[] {
    const ref = `${a}.${ident(f.column.name)}`;
    const t = f.column.sqlType;
    const out: string[] = [];
    for (const [op, v] of Object.entries(ops)) {
      if (v === null || v === undefined) continue;
      if (op === 'is') {
        out.push(`${ref} is ${v === 'NULL' ? '' : 'not '}null`);
        continue;
      }
      if (f.isArray) {
        const arr = this.valueParam(v, t, true);
        const sqlOp = { contains: '@>', containedBy: '<@', overlaps: '&&', eq: '=' }[op];
        if (!sqlOp) throw gqlError(`Unknown filter operator "${op}"`);
        out.push(`${ref} ${sqlOp} ${arr}`);
        continue;
      }
      const cmp: Record<string, string> = {
        eq: '=',
        neq: '<>',
        lt: '<',
        lte: '<=',
        gt: '>',
        gte: '>=',
        like: 'like',
        ilike: 'ilike',
        regex: '~',
        iregex: '~*',
      };
      if (op === 'in') {
        const list = JSON.stringify((v as unknown[]).map((x) => this.textValue(x)));
        out.push(`${ref} = any(array(select jsonb_array_elements_text(${this.param(list, 'jsonb')}))::${t}[])`);
      } else if (op === 'startsWith') out.push(`starts_with(${ref}::text, ${this.param(this.textValue(v), 'text')})`);
      else if (op === 'like' || op === 'ilike' || op === 'regex' || op === 'iregex')
        out.push(`${ref}::text ${cmp[op]} ${this.param(this.textValue(v), 'text')}`);
      else if (cmp[op]) out.push(`${ref} ${cmp[op]} ${this.param(this.textValue(v), t)}`);
      else throw gqlError(`Unknown filter operator "${op}"`);
    }
    return out;
  }

  private decodeNodeId(nodeId: string): { t: TableModel; pk: unknown[] } | null {
    let parts: unknown;
    try {
      parts = JSON.parse(Buffer.from(nodeId, 'base64').toString('utf8'));
    } catch {
      throw gqlError('Invalid value passed to nodeId argument');
    }
    if (!Array.isArray(parts) || parts.length < 3 || typeof parts[0] !== 'string' || typeof parts[1] !== 'string') {
      throw gqlError('Invalid value passed to nodeId argument');
    }
    const t = this.model.tables.find((x) => x.table.schema === parts[0] && x.table.name === parts[1]);
    if (!t) return null;
    if (parts.length - 2 !== t.primaryKey.length) throw gqlError('Invalid value passed to nodeId argument');
    return { t, pk: parts.slice(2) };
  }

  private nodeIdCondition(t: TableModel, nodeId: string, a: string): string | null {
    const decoded = this.decodeNodeId(nodeId);
    if (!decoded || decoded.t !== t) return null;
    return t.primaryKey.map((c, i) => `${a}.${ident(c.name)} = ${this.param(this.textValue(decoded.pk[i]), c.sqlType)}`).join(' and ');
  }

  /** One root query field as a jsonb expression. */
  queryField(node: FieldNode): string {
    const name = node.name.value;
    const args = this.args('Query', node);
    if (name === 'node') {
      const decoded = this.decodeNodeId(args.nodeId as string);
      if (!decoded) return 'null::jsonb';
      const { t } = decoded;
      const a = this.alias();
      const one = this.rowsOf(1, () => this.nodeExpr(t, a, this.subFields([node], t.typeName), true));
      return `(select ${one} from ${tableRef(t)} ${a} where ${this.nodeIdCondition(t, args.nodeId as string, a)})`;
    }
    const byPk = this.model.tables.find((x) => `${lowerFirst(x.typeName)}ByPk` === name);
    if (byPk) {
      const a = this.alias();
      const pk = byPk.primaryKey.map((c) => {
        const f = columnFields(byPk).find((x) => x.column.name === c.name)!;
        return `${a}.${ident(c.name)} = ${this.param(this.textValue(args[f.name]), c.sqlType)}`;
      });
      const one = this.rowsOf(1, () => this.nodeExpr(byPk, a, this.subFields([node], byPk.typeName)));
      return `(select ${one} from ${tableRef(byPk)} ${a} where ${pk.join(' and ')})`;
    }
    const t = this.model.tables.find((x) => x.collectionName === name);
    if (t) return this.connection(t, tableRef(t), args, this.subFields([node], `${t.typeName}Connection`), () => []);
    const fn = this.model.functions.find((f) => f.name === name && !f.mutation);
    if (fn) return this.functionCall(fn, node, args);
    throw gqlError(`Unknown field "${name}" on type Query`);
  }

  private functionCall(fn: FunctionModel, node: FieldNode, args: Record<string, unknown>): string {
    const argSql = fn.args
      .filter((a) => args[a.name] !== undefined)
      .map((a) => `${ident(fn.fn.argNames[fn.args.indexOf(a)]!)} => ${this.valueParam(args[a.name], a.sqlType, a.isArray)}`);
    const call = `${ident(fn.fn.schema)}.${ident(fn.fn.name)}(${argSql.join(', ')})`;
    if ('table' in fn.returns) {
      const t = fn.returns.table;
      if (fn.fn.returnsSet) return this.connection(t, call, args, this.subFields([node], `${t.typeName}Connection`), () => []);
      const a = this.alias();
      const one = this.rowsOf(1, () => this.nodeExpr(t, a, this.subFields([node], t.typeName)));
      return `(select case when ${a} is null then null else ${one} end from ${call} ${a})`;
    }
    return `to_jsonb(${this.valueExpr(call, fn.returns.scalar, fn.returns.isArray)})`;
  }

  /** One root mutation field: a statement returning `n` (rows affected) and `data` (JSON text), with the atMost limit to check. */
  mutationField(node: FieldNode): { sql: string; atMost: number | null; verb: string } {
    const name = node.name.value;
    const args = this.args('Mutation', node);
    const fn = this.model.functions.find((f) => f.name === name && f.mutation);
    if (fn) return { sql: `select 0 as n, (${this.functionCall(fn, node, args)})::text as data`, atMost: null, verb: 'call' };
    const match = /^(insertInto|update|deleteFrom)(.+)Collection$/.exec(name);
    const t = match && this.model.byTypeName.get(match[2]!);
    if (!match || !t) throw gqlError(`Unknown field "${name}" on type Mutation`);
    const verb = match[1]!;
    const fields = this.subFields(
      [node],
      `${t.typeName}${verb === 'insertInto' ? 'Insert' : verb === 'update' ? 'Update' : 'Delete'}Response`,
    );
    const cols = columnFields(t).map((c) => ident(c.column.name));
    let statement: string;
    if (verb === 'insertInto') {
      const objects = args.objects as Record<string, unknown>[];
      if (objects.length === 0) throw gqlError('At least one record must be provided to objects');
      const used = columnFields(t).filter((c) => objects.some((o) => o[c.name] !== undefined));
      if (used.length === 0) throw gqlError('Each record must set at least one field');
      const rows = objects.map(
        (o) =>
          `(${used.map((c) => (o[c.name] === undefined ? 'default' : this.valueParam(o[c.name], c.column.sqlType, c.isArray))).join(', ')})`,
      );
      statement = `insert into ${tableRef(t)} (${used.map((c) => ident(c.column.name)).join(', ')}) values ${rows.join(', ')} returning ${cols.join(', ')}`;
    } else if (verb === 'update') {
      const set = args.set as Record<string, unknown>;
      const assignments = columnFields(t)
        .filter((c) => set[c.name] !== undefined)
        .map((c) => `${ident(c.column.name)} = ${this.valueParam(set[c.name], c.column.sqlType, c.isArray)}`);
      if (assignments.length === 0) throw gqlError('At least one mapping required in set');
      const a = this.alias();
      const where = this.filter(t, args.filter, a);
      statement = `update ${tableRef(t)} ${a} set ${assignments.join(', ')}${where ? ` where ${where}` : ''} returning ${cols.map((c) => `${a}.${c}`).join(', ')}`;
    } else {
      const a = this.alias();
      const where = this.filter(t, args.filter, a);
      statement = `delete from ${tableRef(t)} ${a}${where ? ` where ${where}` : ''} returning ${cols.map((c) => `${a}.${c}`).join(', ')}`;
    }
    const r = this.alias();
    const entries: [string, string][] = [];
    for (const [key, nodes] of fields) {
      const fname = nodes[0]!.name.value;
      if (fname === 'affectedCount') entries.push([key, '(select count(*) from affected)::int']);
      else if (fname === 'records') {
        const records = verb === 'insertInto' ? (args.objects as unknown[]).length : (args.atMost as number);
        const record = this.rowsOf(records, () => this.nodeExpr(t, r, this.subFields(nodes, t.typeName)));
        entries.push([key, `coalesce((select jsonb_agg(${record}) from affected ${r}), '[]'::jsonb)`]);
      }
    }
    const sql = `with affected as (${statement}) select (select count(*) from affected)::int as n, (${this.object(entries)})::text as data`;
    return {
      sql,
      atMost: verb === 'insertInto' ? null : (args.atMost as number),
      verb: verb === 'insertInto' ? 'insert' : verb === 'update' ? 'update' : 'delete',
    };
  }
}
