import type { RColumn } from '../project/project.reflection';
import { columnFields, type ScalarKind, type TableModel } from './graphql.model';
import type {
  CallPlan,
  ConnectionPlan,
  Direction,
  FilterPlan,
  FunctionPlan,
  Keyed,
  MutationFieldPlan,
  MutationPlan,
  NodePlan,
  OrderItem,
  QueryPlan,
  RowCallPlan,
} from './graphql.plan.types';
import { REVERSED } from './graphql.plan.types';
import { TYPE_KEY } from './graphql.schema';

// The SQL step (as pg_graphql's transpile.rs): a plan becomes one statement with one parameter context. It raises
// no GraphQL error; every value from a request becomes a parameter, identifiers come from the catalog.

/** A statement and its parameters. */
export interface CompiledSql {
  sql: string;
  params: (string | null)[];
}

/** Quotes an identifier taken from the catalog. */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const tableRef = (t: TableModel) => `${ident(t.table.schema)}.${ident(t.table.name)}`;

const ORDER_SQL: Record<Direction, string> = {
  AscNullsFirst: 'asc nulls first',
  AscNullsLast: 'asc nulls last',
  DescNullsFirst: 'desc nulls first',
  DescNullsLast: 'desc nulls last',
};

/** Base64 of the JSON text of a jsonb array, as pg_graphql encodes cursors and node ids. */
const base64Json = (arrayExpr: string) => `translate(encode(convert_to((${arrayExpr})::text, 'UTF8'), 'base64'), E'\\n', '')`;

/** A value from a request as the text of a parameter. */
function textValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** The root fields of a query as one statement: one JSON text column (`f0`, `f1`, ...) per field. */
export function querySql(plans: QueryPlan[]): CompiledSql & { columns: string[] } {
  const sql = new Transpiler();
  const columns = plans.map((_, i) => `f${i}`);
  const exprs = plans.map((p, i) => `(${sql.queryField(p)})::text as "${columns[i]}"`);
  return { sql: `select ${exprs.join(', ')}`, params: sql.params, columns };
}

/** One root mutation field as one statement returning `n` (rows affected) and `data` (JSON text). */
export function mutationSql(plan: MutationPlan): CompiledSql {
  const sql = new Transpiler();
  return { sql: sql.mutationField(plan), params: sql.params };
}

/** Writes the SQL of plans, collecting the parameters of one statement. */
class Transpiler {
  readonly params: (string | null)[] = [];
  private aliases = 0;

  private param(value: string | null, cast: string): string {
    this.params.push(value);
    return `$${this.params.length}::${cast}`;
  }

  private alias(): string {
    this.aliases += 1;
    return `t${this.aliases}`;
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

  /** A parameter holding a GraphQL input value for a column (arrays as a JSON list cast to the column's array type). */
  private valueParam(value: unknown, sqlType: string, isArray: boolean): string {
    if (isArray) {
      if (value === null) return `null::${sqlType}`;
      const list = (Array.isArray(value) ? value : [value]).map((v) => textValue(v));
      return `array(select jsonb_array_elements_text(${this.param(JSON.stringify(list), 'jsonb')}))::${sqlType}`;
    }
    return this.param(textValue(value), sqlType);
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

  private keyEquals(keys: { column: RColumn; value: unknown }[], a: string): string {
    return keys.map(({ column, value }) => `${a}.${ident(column.name)} = ${this.param(textValue(value), column.sqlType)}`).join(' and ');
  }

  /** The jsonb of one row under alias `a`. */
  private node(plan: NodePlan, a: string): string {
    const t = plan.table;
    const entries: [string, string][] = [];
    if (plan.withType) entries.push([TYPE_KEY, this.param(t.typeName, 'text')]);
    for (const [key, f] of plan.fields) {
      if (f.kind === 'nodeId') entries.push([key, this.nodeIdExpr(t, a)]);
      else if (f.kind === 'column')
        entries.push([key, this.valueExpr(`${a}.${ident(f.field.column.name)}`, f.field.scalar, f.field.isArray)]);
      else if (f.kind === 'computed') {
        const b = this.alias();
        const call = `${ident(f.field.fn.schema)}.${ident(f.field.fn.name)}(${b})`;
        const pkJoin = t.primaryKey.map((c) => `${b}.${ident(c.name)} = ${a}.${ident(c.name)}`).join(' and ');
        entries.push([key, `(select ${this.valueExpr(call, f.field.scalar, f.field.isArray)} from ${tableRef(t)} ${b} where ${pkJoin})`]);
      } else if (f.kind === 'computedOne') {
        const b = this.alias();
        // A function returning one row yields a row of nulls for none: a row without its key is no row.
        const found = f.node.table.primaryKey.map((c) => `${b}.${ident(c.name)} is not null`).join(' and ');
        const from = this.rowCall({ fn: f.field.fn, rowOf: t }, a);
        entries.push([key, `(select ${this.node(f.node, b)} from ${from} ${b} where ${found} limit 1)`]);
      } else if (f.kind === 'toOne') {
        const b = this.alias();
        const on = f.field.join.map(([mine, theirs]) => `${b}.${ident(theirs)} = ${a}.${ident(mine)}`).join(' and ');
        entries.push([key, `(select ${this.node(f.node, b)} from ${tableRef(f.field.target)} ${b} where ${on} limit 1)`]);
      } else entries.push([key, this.connection(f.connection, a)]);
    }
    return this.object(entries);
  }

  /** Rows strictly after the cursor's position in the order `items` (null-safe, stable under ties thanks to the primary key). */
  private afterCursor(items: OrderItem[], values: unknown[], a: string): string {
    const params = items.map((it, i) => this.param(textValue(values[i]), it.sqlType));
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

  /** A computed relation's function called with the whole row under alias `a` (which may hold only some columns). */
  private rowCall(call: RowCallPlan, a: string): string {
    const r = this.alias();
    const pkJoin = call.rowOf.primaryKey.map((c) => `${r}.${ident(c.name)} = ${a}.${ident(c.name)}`).join(' and ');
    return `${ident(call.fn.schema)}.${ident(call.fn.name)}((select ${r} from ${tableRef(call.rowOf)} ${r} where ${pkJoin}))`;
  }

  private call(call: CallPlan): string {
    const args = call.args.map((a) => `${ident(a.sqlName)} => ${this.valueParam(a.value, a.sqlType, a.isArray)}`);
    return `${ident(call.fn.schema)}.${ident(call.fn.name)}(${args.join(', ')})`;
  }

  /** A connection (edges, pageInfo, totalCount, aggregate), keyset-paginated; `outer` is the alias its join refers to. */
  private connection(plan: ConnectionPlan, outer: string | null): string {
    const { table: t, order, backward, limit } = plan;
    // The source and the filter are written once; totalCount and aggregate read the same filtered rows.
    const source = !plan.source ? tableRef(t) : 'rowOf' in plan.source ? this.rowCall(plan.source, outer!) : this.call(plan.source);
    const filtered = (x: string) => {
      const conds = plan.join.map(([mine, theirs]) => `${x}.${ident(theirs)} = ${outer}.${ident(mine)}`);
      if (plan.filter) conds.push(this.filter(plan.filter, x));
      return conds;
    };
    const b = this.alias();
    const conds = filtered(b);
    const afterCond = (x: string) => plan.after && this.afterCursor(order, plan.after, x);
    const beforeCond = (x: string) =>
      plan.before &&
      this.afterCursor(
        order.map((o) => ({ ...o, dir: REVERSED[o.dir] })),
        plan.before,
        x,
      );
    if (plan.after) conds.push(afterCond(b)!);
    if (plan.before) conds.push(beforeCond(b)!);
    // As pg_graphql: a page has rows on the cursor's side when a row it does not show is on that side of the cursor.
    const beyondCursor = (cond: (x: string) => string | null) => {
      const c = this.alias();
      const cc = [...filtered(c), `not ${cond(c)}`];
      return `(count(*) > 0 and exists(select 1 from ${source} ${c} where ${cc.join(' and ')}))`;
    };
    const effective = backward ? order.map((o) => ({ ...o, dir: REVERSED[o.dir] })) : order;
    const cols = columnFields(t)
      .map((c) => `${b}.${ident(c.column.name)}`)
      .join(', ');
    const orderSql = effective.map((o) => `${b}.${ident(o.column)} ${ORDER_SQL[o.dir]}`).join(', ');
    const L = this.param(String(limit), 'int');
    const inner =
      `select ${cols} from ${source} ${b}${conds.length ? ` where ${conds.join(' and ')}` : ''} order by ${orderSql}` +
      ` limit ${L} + 1 offset ${this.param(String(plan.offset), 'int')}`;
    const n = `${b}."__svc_n"`;
    const ord = backward ? `${n} desc` : n;
    const ordRev = backward ? n : `${n} desc`;
    const cursor = () => base64Json(`jsonb_build_array(${order.map((o) => `${b}.${ident(o.column)}`).join(', ')})`);
    const entries: [string, string][] = [];
    let whole: { alias: string; from: string } | undefined;
    const allRows = () => {
      if (!whole) {
        const c = this.alias();
        const cc = filtered(c);
        whole = { alias: c, from: `from ${source} ${c}${cc.length ? ` where ${cc.join(' and ')}` : ''}` };
      }
      return whole;
    };
    for (const [key, f] of plan.fields) {
      if (f.kind === 'edges') {
        const edge: [string, string][] = f.fields.map(([ek, e]) => [ek, e.kind === 'cursor' ? cursor() : this.node(e.node, b)]);
        entries.push([key, `coalesce(jsonb_agg(${this.object(edge)} order by ${ord}) filter (where ${n} <= ${L}), '[]'::jsonb)`]);
      } else if (f.kind === 'pageInfo') {
        const info: [string, string][] = f.fields.map(([pk, p]) => {
          if (p === 'hasNextPage') return [pk, !backward ? `count(*) > ${L}` : plan.before ? beyondCursor(beforeCond) : 'false'];
          if (p === 'hasPreviousPage') {
            if (backward) return [pk, `count(*) > ${L}`];
            if (plan.offset > 0) return [pk, 'count(*) > 0'];
            return [pk, plan.after ? beyondCursor(afterCond) : 'false'];
          }
          if (p === 'startCursor') return [pk, `(array_agg(${cursor()} order by ${ord}) filter (where ${n} <= ${L}))[1]`];
          return [pk, `(array_agg(${cursor()} order by ${ordRev}) filter (where ${n} <= ${L}))[1]`];
        });
        entries.push([key, this.object(info)]);
      } else if (f.kind === 'aggregate') {
        const { alias: c, from } = allRows();
        const parts: [string, string][] = f.fields.map(([ak, agg]) => {
          if (agg.fn === 'count') return [ak, 'count(*)::int'];
          const cols: [string, string][] = agg.columns.map(([ck, col]) => {
            const ref = `${c}.${ident(col.column.name)}`;
            return [
              ck,
              // As pg_graphql: aggregates are JSON numbers, even over bigint and numeric columns.
              `${agg.fn}(${ref})`,
            ];
          });
          return [ak, this.object(cols)];
        });
        entries.push([key, `(select ${this.object(parts)} ${from})`]);
      } else {
        const { from } = allRows();
        entries.push([key, `(select count(*) ${from})::int`]);
      }
    }
    // group by (): one row even when only uncorrelated fields (totalCount) are selected.
    return `(select ${this.object(entries)} from (select x.*, row_number() over () as "__svc_n" from (${inner}) x) ${b} group by ())`;
  }

  /** The SQL condition of a filter plan over rows under alias `a`. */
  private filter(plan: FilterPlan, a: string): string {
    const ref = (c: RColumn) => `${a}.${ident(c.name)}`;
    switch (plan.kind) {
      case 'and':
      case 'or':
        return `(${plan.parts.map((p) => this.filter(p, a)).join(` ${plan.kind} `)})`;
      case 'not':
        return `not (${this.filter(plan.inner, a)})`;
      case 'const':
        return String(plan.value);
      case 'keyEquals':
        return `(${this.keyEquals(plan.keys, a)})`;
      case 'isNull':
        return `${ref(plan.column)} is ${plan.isNull ? '' : 'not '}null`;
      case 'compare':
        return `${ref(plan.column)} ${plan.op} ${this.param(textValue(plan.value), plan.column.sqlType)}`;
      case 'text':
        if (plan.op === 'startsWith') return `starts_with(${ref(plan.column)}::text, ${this.param(textValue(plan.value), 'text')})`;
        return `${ref(plan.column)}::text ${plan.op} ${this.param(textValue(plan.value), 'text')}`;
      case 'in': {
        const list = JSON.stringify(plan.values.map((x) => textValue(x)));
        return `${ref(plan.column)} = any(array(select jsonb_array_elements_text(${this.param(list, 'jsonb')}))::${plan.column.sqlType}[])`;
      }
      case 'array':
        return `${ref(plan.column)} ${plan.op} ${this.valueParam(plan.value, plan.column.sqlType, true)}`;
    }
  }

  /** One root query field as a jsonb expression. */
  queryField(plan: QueryPlan): string {
    if (plan.kind === 'none') return 'null::jsonb';
    if (plan.kind === 'row') {
      const a = this.alias();
      return `(select ${this.node(plan.node, a)} from ${tableRef(plan.node.table)} ${a} where ${this.keyEquals(plan.keys, a)})`;
    }
    if (plan.kind === 'connection') return this.connection(plan.connection, null);
    return this.functionResult(plan.function);
  }

  private functionResult(plan: FunctionPlan): string {
    const { result } = plan;
    if (result.kind === 'connection') return this.connection(result.connection, null);
    const call = this.call(plan.call);
    if (result.kind === 'node') {
      const a = this.alias();
      return `(select case when ${a} is null then null else ${this.node(result.node, a)} end from ${call} ${a})`;
    }
    return `to_jsonb(${this.valueExpr(call, result.scalar, result.isArray)})`;
  }

  /** One root mutation field as a statement returning `n` and `data`. */
  mutationField(plan: MutationPlan): string {
    if (plan.kind === 'function') return `select 0 as n, (${this.functionResult(plan.function)})::text as data`;
    const t = plan.table;
    const cols = columnFields(t).map((c) => ident(c.column.name));
    let statement: string;
    if (plan.kind === 'insert') {
      const rows = plan.rows.map(
        (row) =>
          `(${plan.columns.map((c, i) => (row[i] === undefined ? 'default' : this.valueParam(row[i], c.column.sqlType, c.isArray))).join(', ')})`,
      );
      statement = `insert into ${tableRef(t)} (${plan.columns.map((c) => ident(c.column.name)).join(', ')}) values ${rows.join(', ')} returning ${cols.join(', ')}`;
    } else {
      const a = this.alias();
      const where = plan.filter ? ` where ${this.filter(plan.filter, a)}` : '';
      const returning = `returning ${cols.map((c) => `${a}.${c}`).join(', ')}`;
      if (plan.kind === 'update') {
        const assignments = plan.set.map(([c, v]) => `${ident(c.column.name)} = ${this.valueParam(v, c.column.sqlType, c.isArray)}`);
        statement = `update ${tableRef(t)} ${a} set ${assignments.join(', ')}${where} ${returning}`;
      } else statement = `delete from ${tableRef(t)} ${a}${where} ${returning}`;
    }
    const entries = this.mutationFields(plan.fields);
    return `with affected as (${statement}) select (select count(*) from affected)::int as n, (${this.object(entries)})::text as data`;
  }

  private mutationFields(fields: Keyed<MutationFieldPlan>): [string, string][] {
    return fields.map(([key, f]) => {
      if (f.kind === 'affectedCount') return [key, '(select count(*) from affected)::int'];
      const r = this.alias();
      return [key, `coalesce((select jsonb_agg(${this.node(f.node, r)}) from affected ${r}), '[]'::jsonb)`];
    });
  }
}
