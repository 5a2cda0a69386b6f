import type { RColumn, RFunction } from '../project/project.reflection';
import { AppError } from '../shared/errors';
import type { ColumnField, ComputedField, ComputedRelationField, RelationField, ScalarKind, TableModel } from './graphql.model';

// The plans the plan step (graphql.plan.ts) builds and the SQL step (graphql.transpile.ts) reads.
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

/** A function called with the row a connection is nested in (a computed relation). */
export interface RowCallPlan {
  fn: RFunction;
  rowOf: TableModel;
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
  | { kind: 'computedOne'; field: ComputedRelationField; node: NodePlan }
  | { kind: 'toMany'; field: RelationField | ComputedRelationField; connection: ConnectionPlan };

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
  source: CallPlan | RowCallPlan | null;
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
