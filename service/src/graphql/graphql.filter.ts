import type { RColumn } from '../project/project.reflection';
import type { ColumnField, GraphModel, TableModel } from './graphql.model';
import { base64JsonArray, gqlError, type FilterPlan } from './graphql.plan.types';

// Filters and node ids of the plan step: a `<Table>Filter` value becomes a FilterPlan, a node id a table and key.

const COMPARE = { eq: '=', neq: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
const TEXT = { like: 'like', ilike: 'ilike', regex: '~', iregex: '~*', startsWith: 'startsWith' } as const;
const ARRAY = { contains: '@>', containedBy: '<@', overlaps: '&&', eq: '=' } as const;

/** Reads filter values and node ids against one role's model. */
export class FilterPlanner {
  constructor(private readonly model: GraphModel) {}

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
      if (value === undefined || (value === null && op === 'is')) continue;
      // As SQL (and pg_graphql): a comparison with null holds for no row.
      if (value === null) out.push({ kind: 'const', value: false });
      else if (op === 'is') out.push({ kind: 'isNull', column, isNull: value === 'NULL' });
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
}
