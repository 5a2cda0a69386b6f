import { directiveOf, type RColumn, type Reflection, type RForeignKey, type RFunction, type RTable } from '../project/project.reflection';
import type { ApiRole } from '../project/project.setup';

/** How a column's values cross the wire. */
export type ScalarKind =
  | 'Int'
  | 'Float'
  | 'String'
  | 'Boolean'
  | 'BigInt'
  | 'BigFloat'
  | 'UUID'
  | 'Date'
  | 'Time'
  | 'Datetime'
  | 'JSON'
  | 'Opaque'
  | { enum: string };

/** A column as a GraphQL field. */
export interface ColumnField {
  kind: 'column';
  name: string;
  column: RColumn;
  scalar: ScalarKind;
  isArray: boolean;
  insertable: boolean;
  updatable: boolean;
}

/** A foreign key seen from one of its two tables. */
export interface RelationField {
  kind: 'toOne' | 'toMany';
  name: string;
  target: TableModel;
  /** Pairs of (column of this table, column of the target) to join on. */
  join: [string, string][];
  /** Always finds its row (a foreign key with a not-null column, to a table without RLS). */
  notNull: boolean;
}

/** A function taking the table's row type. */
export interface ComputedField {
  kind: 'computed';
  name: string;
  fn: RFunction;
  scalar: ScalarKind;
  isArray: boolean;
}

/** A function taking the table's row and returning a row (or a set of rows) of another table. */
export interface ComputedRelationField {
  kind: 'computedRelation';
  name: string;
  fn: RFunction;
  target: TableModel;
  /** A connection (a set-returning function not declared `rows 1`), or else one row or null. */
  many: boolean;
}

/** Any field of a table's object type besides nodeId. */
export type TableField = ColumnField | RelationField | ComputedField | ComputedRelationField;

/** A table (or view with a primary key) as one role sees it. */
export interface TableModel {
  table: RTable;
  typeName: string;
  collectionName: string;
  fields: Map<string, TableField>;
  primaryKey: RColumn[];
  maxRows: number;
  totalCount: boolean;
  aggregate: boolean;
  description: string | null;
  canInsert: boolean;
  canUpdate: boolean;
  canDelete: boolean;
}

/** An enum type. */
export interface EnumModel {
  typeName: string;
  /** GraphQL value name -> Postgres label. */
  values: Map<string, string>;
}

/** A function exposed as a root field. */
export interface FunctionModel {
  name: string;
  fn: RFunction;
  args: { name: string; sqlType: string; scalar: ScalarKind; isArray: boolean; optional: boolean }[];
  returns: { table: TableModel } | { scalar: ScalarKind; isArray: boolean };
  mutation: boolean;
}

/** Everything one role can reach, by GraphQL name. */
export interface GraphModel {
  role: ApiRole;
  tables: TableModel[];
  byTypeName: Map<string, TableModel>;
  enums: Map<number, EnumModel>;
  functions: FunctionModel[];
  introspection: boolean;
}

/** Default page size and cap of `first`/`last`, as pg_graphql. */
export const DEFAULT_MAX_ROWS = 30;
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

const pascal = (s: string) =>
  s
    .split('_')
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
const camel = (s: string) => {
  const p = pascal(s);
  return p && p[0]!.toLowerCase() + p.slice(1);
};
/** Lower-cases the first letter. */
export const lowerFirst = (s: string) => (s ? s[0]!.toLowerCase() + s.slice(1) : s);

function scalarOfTypname(typname: string, typeOid: number, enums: Map<number, EnumModel>): ScalarKind {
  switch (typname) {
    case 'int2':
    case 'int4':
      return 'Int';
    case 'int8':
      return 'BigInt';
    case 'float4':
    case 'float8':
      return 'Float';
    case 'numeric':
      return 'BigFloat';
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'char':
    case 'name':
    case 'citext':
      return 'String';
    case 'bool':
      return 'Boolean';
    case 'uuid':
      return 'UUID';
    case 'date':
      return 'Date';
    case 'time':
      return 'Time';
    case 'timestamp':
    case 'timestamptz':
      return 'Datetime';
    case 'json':
    case 'jsonb':
      return 'JSON';
    default: {
      const e = enums.get(typeOid);
      return e ? { enum: e.typeName } : 'Opaque';
    }
  }
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** Builds what `role` can see of a reflected catalog, named as pg_graphql names it. */
export function buildModel(r: Reflection, role: ApiRole): GraphModel {
  const schemaDirectives = new Map(r.schemas.map((s) => [s.name, directiveOf(s.comment)]));
  const inflectIn = (schema: string) => schemaDirectives.get(schema)?.inflect_names === true;
  const enums = new Map<number, EnumModel>();
  for (const e of r.enums) {
    const d = directiveOf(e.comment);
    const mappings = (d.mappings ?? {}) as Record<string, unknown>;
    const values = new Map<string, string>();
    for (const label of e.labels) {
      const mapped = typeof mappings[label] === 'string' ? (mappings[label] as string) : label;
      if (NAME.test(mapped)) values.set(mapped, label);
    }
    const typeName = typeof d.name === 'string' ? d.name : inflectIn(e.schema) ? pascal(e.name) : e.name;
    if (NAME.test(typeName) && values.size > 0) enums.set(e.oid, { typeName, values });
  }

  const tables: TableModel[] = [];
  const byOid = new Map<number, TableModel>();
  for (const t of r.tables) {
    if (!t.select.includes(role)) continue;
    const d = directiveOf(t.comment);
    const inflect = inflectIn(t.schema);
    const pkNames =
      t.primaryKey.length > 0 ? t.primaryKey : Array.isArray(d.primary_key_columns) ? (d.primary_key_columns as string[]) : [];
    const visible = t.columns.filter((c) => c.select.includes(role));
    const primaryKey = pkNames.map((n) => visible.find((c) => c.name === n));
    if (primaryKey.length === 0 || primaryKey.some((c) => !c)) continue;
    const typeName = typeof d.name === 'string' ? d.name : inflect ? pascal(t.name) : t.name;
    if (!NAME.test(typeName)) continue;
    const fields = new Map<string, TableField>();
    for (const c of visible) {
      const cd = directiveOf(c.comment);
      const name = typeof cd.name === 'string' ? cd.name : inflect ? camel(c.name) : c.name;
      // Composite types are left out, as pg_graphql leaves them out.
      if (!NAME.test(name) || name === 'nodeId' || c.composite) continue;
      // Two columns named alike (`_id` and `id` both inflect to `id`): the later one is served, as pg_graphql does.
      fields.delete(name);
      fields.set(name, {
        kind: 'column',
        name,
        column: c,
        scalar: scalarOfTypname(c.typname, c.typeOid, enums),
        isArray: c.isArray,
        // A column its own sequence fills is neither inserted nor updated through GraphQL (as pg_graphql).
        insertable: !c.generated && !c.serial && c.insert.includes(role) && t.kind !== 'm',
        updatable: !c.generated && !c.serial && c.update.includes(role) && t.kind !== 'm',
      });
    }
    const schemaMax = num(schemaDirectives.get(t.schema)?.max_rows);
    const totalCount = (d.totalCount as { enabled?: unknown } | undefined)?.enabled === true;
    const model: TableModel = {
      table: t,
      typeName,
      collectionName: `${lowerFirst(typeName)}Collection`,
      fields,
      primaryKey: primaryKey as RColumn[],
      maxRows: num(d.max_rows) ?? schemaMax ?? DEFAULT_MAX_ROWS,
      totalCount,
      aggregate: (d.aggregate as { enabled?: unknown } | undefined)?.enabled === true,
      description: typeof d.description === 'string' ? d.description : null,
      canInsert: t.insert.includes(role) && t.kind !== 'm',
      canUpdate: t.update.includes(role) && t.kind !== 'm',
      canDelete: t.delete.includes(role) && t.kind !== 'm',
    };
    tables.push(model);
    byOid.set(t.oid, model);
  }

  const fks: (RForeignKey & { localName?: string; foreignName?: string })[] = r.foreignKeys.map((fk) => {
    const d = directiveOf(fk.comment);
    return { ...fk, localName: d.local_name as string | undefined, foreignName: d.foreign_name as string | undefined };
  });
  for (const t of r.tables) {
    const d = directiveOf(t.comment);
    if (!Array.isArray(d.foreign_keys)) continue;
    for (const [i, raw] of (d.foreign_keys as Record<string, unknown>[]).entries()) {
      const target = r.tables.find((x) => x.schema === (raw.foreign_schema ?? t.schema) && x.name === raw.foreign_table);
      if (!target || !Array.isArray(raw.local_columns) || !Array.isArray(raw.foreign_columns)) continue;
      fks.push({
        name: `${t.name}_directive_fk_${i}`,
        table: t.oid,
        refTable: target.oid,
        columns: raw.local_columns as string[],
        refColumns: raw.foreign_columns as string[],
        comment: null,
        localName: raw.local_name as string | undefined,
        foreignName: raw.foreign_name as string | undefined,
      });
    }
  }
  for (const fk of fks) {
    const local = byOid.get(fk.table);
    const foreign = byOid.get(fk.refTable);
    if (!local || !foreign) continue;
    const localCols = fk.columns.map((n) => [...local.fields.values()].find((f) => f.kind === 'column' && f.column.name === n));
    const foreignCols = fk.refColumns.map((n) => [...foreign.fields.values()].find((f) => f.kind === 'column' && f.column.name === n));
    if (localCols.some((c) => !c) || foreignCols.some((c) => !c)) continue;
    const join = fk.columns.map((c, i) => [c, fk.refColumns[i]!] as [string, string]);
    let toOneName = fk.foreignName;
    if (!toOneName) {
      const only = localCols.length === 1 ? localCols[0]!.name : undefined;
      const stripped = only?.replace(/(_id|Id)$/, '');
      toOneName = stripped && stripped !== only ? stripped : lowerFirst(foreign.typeName);
    }
    const oneToOne = local.table.uniques.some((u) => u.length === fk.columns.length && u.every((c) => fk.columns.includes(c)));
    const toManyName = fk.localName ?? (oneToOne ? lowerFirst(local.typeName) : `${lowerFirst(local.typeName)}Collection`);
    if (NAME.test(toOneName) && !local.fields.has(toOneName))
      local.fields.set(toOneName, {
        kind: 'toOne',
        name: toOneName,
        target: foreign,
        join,
        // As pg_graphql: a row a foreign key with a not-null column points at exists, unless RLS may hide it.
        notNull: localCols.some((c) => (c as ColumnField).column.notNull) && !foreign.table.rowSecurity,
      });
    if (NAME.test(toManyName) && !foreign.fields.has(toManyName)) {
      foreign.fields.set(toManyName, {
        kind: oneToOne ? 'toOne' : 'toMany',
        name: toManyName,
        target: local,
        join: join.map(([a, b]) => [b, a] as [string, string]),
        notNull: false,
      });
    }
  }

  const functions: FunctionModel[] = [];
  for (const fn of r.functions) {
    if (!fn.execute.includes(role)) continue;
    const d = directiveOf(fn.comment);
    const inflect = inflectIn(fn.schema);
    const firstArgType = r.types[String(fn.argTypes[0])];
    const rowOf = fn.argTypes.length === 1 && firstArgType ? tables.find((t) => t.table.oid === firstArgType.relid) : undefined;
    const ret = r.types[String(fn.returnType)];
    const retTable = ret && ret.relid ? tables.find((t) => t.table.oid === ret.relid) : undefined;
    const computedName = () => {
      // A computed field is named after the function without its leading underscore.
      const base = fn.name.startsWith('_') ? fn.name.slice(1) : fn.name;
      return typeof d.name === 'string' ? d.name : inflect ? camel(base) : base;
    };
    if (rowOf && retTable) {
      const name = computedName();
      if (NAME.test(name) && !rowOf.fields.has(name))
        rowOf.fields.set(name, { kind: 'computedRelation', name, fn, target: retTable, many: fn.returnsSet && fn.rows !== 1 });
      continue;
    }
    if (rowOf && !fn.returnsSet) {
      const name = computedName();
      if (!ret || ret.relid || !NAME.test(name) || rowOf.fields.has(name)) continue;
      rowOf.fields.set(name, {
        kind: 'computed',
        name,
        fn,
        scalar: scalarOfTypname(ret.isArray ? ret.elemTypname! : ret.typname, ret.elemOid, enums),
        isArray: ret.isArray,
      });
      continue;
    }
    if (fn.argNames.length < fn.argTypes.length || fn.argTypes.some((t) => r.types[String(t)]?.relid)) continue;
    const name = typeof d.name === 'string' ? d.name : inflect ? camel(fn.name) : fn.name;
    if (!NAME.test(name) || !ret) continue;
    const args = fn.argTypes.map((oid, i) => {
      const t = r.types[String(oid)]!;
      return {
        name: inflect ? camel(fn.argNames[i]!) : fn.argNames[i]!,
        sqlType: fn.argSqlTypes[i]!,
        scalar: scalarOfTypname(t.isArray ? t.elemTypname! : t.typname, t.elemOid, enums),
        isArray: t.isArray,
        optional: i >= fn.argTypes.length - fn.defaults,
      };
    });
    if (args.some((a) => !NAME.test(a.name))) continue;
    let returns: FunctionModel['returns'];
    if (retTable) returns = { table: retTable };
    else if (ret.relid || ret.typname === 'void' || ret.typname === 'record') continue;
    else returns = { scalar: scalarOfTypname(ret.isArray ? ret.elemTypname! : ret.typname, ret.elemOid, enums), isArray: ret.isArray };
    if (fn.returnsSet && !retTable) continue;
    functions.push({ name, fn, args, returns, mutation: fn.volatility === 'v' });
  }

  const introspection = [...schemaDirectives.values()].some((d) => d.introspection !== false);
  return { role, tables, byTypeName: new Map(tables.map((t) => [t.typeName, t])), enums, functions, introspection };
}

/** The object-type fields that are columns, in column order. */
export function columnFields(t: TableModel): ColumnField[] {
  return [...t.fields.values()].filter((f): f is ColumnField => f.kind === 'column');
}

/** The GraphQL name of a scalar kind. */
export function scalarName(s: ScalarKind): string {
  return typeof s === 'string' ? s : s.enum;
}
