import type { SqlClient } from './project.driver';
import type { ApiRole } from './project.setup';

/** Which API roles hold a privilege. */
export type RoleList = ApiRole[];

/** A column as the catalog describes it. */
export interface RColumn {
  name: string;
  num: number;
  /** format_type() of the column, usable as a cast target. */
  sqlType: string;
  /** pg_type.typname of the column's type, or of the element type for arrays. */
  typname: string;
  /** pg_type.oid of the (element) type, to find enums. */
  typeOid: number;
  isArray: boolean;
  notNull: boolean;
  hasDefault: boolean;
  generated: boolean;
  /** Filled by a sequence it owns (serial or identity). */
  serial: boolean;
  /** Of a composite type (or an array of one). */
  composite: boolean;
  comment: string | null;
  select: RoleList;
  insert: RoleList;
  update: RoleList;
}

/** A table, view, materialized view or foreign table of an exposed schema. */
export interface RTable {
  oid: number;
  schema: string;
  name: string;
  kind: 'r' | 'p' | 'v' | 'm' | 'f';
  /** Row level security is enabled. */
  rowSecurity: boolean;
  comment: string | null;
  columns: RColumn[];
  primaryKey: string[];
  uniques: string[][];
  select: RoleList;
  insert: RoleList;
  update: RoleList;
  delete: RoleList;
}

/** A foreign key from `table.columns` to `refTable.refColumns`. */
export interface RForeignKey {
  name: string;
  table: number;
  columns: string[];
  refTable: number;
  refColumns: string[];
  comment: string | null;
}

/** A Postgres enum type. */
export interface REnum {
  oid: number;
  schema: string;
  name: string;
  labels: string[];
  comment: string | null;
}

/** A function of an exposed schema. */
export interface RFunction {
  oid: number;
  schema: string;
  name: string;
  argNames: string[];
  argTypes: number[];
  argSqlTypes: string[];
  /** Arguments with a default value, counted from the end. */
  defaults: number;
  returnType: number;
  returnSqlType: string;
  returnTypname: string;
  returnsSet: boolean;
  /** The planner's estimate of rows a set-returning function yields (`rows n`). */
  rows: number;
  volatility: 'i' | 's' | 'v';
  comment: string | null;
  execute: RoleList;
}

/** The reflected catalog of the exposed schemas at one schema version. */
export interface Reflection {
  version: number;
  schemas: { name: string; comment: string | null }[];
  tables: RTable[];
  foreignKeys: RForeignKey[];
  enums: REnum[];
  functions: RFunction[];
  /** pg_type oid -> typname, for types functions and computed fields use. */
  types: Record<string, { typname: string; relid: number; isArray: boolean; elemTypname: string | null; elemOid: number }>;
}

const ROLES = `array['anon','authenticated','service_role']`;
const privs = (fn: string, args: string, priv: string) =>
  `coalesce((select jsonb_agg(r) from unnest(${ROLES}) r where ${fn}(r, ${args}, '${priv}')), '[]'::jsonb)`;

const SCHEMAS = `select n.oid, n.nspname from pg_namespace n
  where n.nspname = 'public' or (coalesce(obj_description(n.oid, 'pg_namespace'), '') like '%@graphql(%'
    and n.nspname not in ('pg_catalog', 'information_schema', 'auth', 'svc_graphql'))`;

/** One query: the schema version and the catalog of the exposed schemas, in one snapshot. */
export const REFLECTION_SQL = `
with s as (${SCHEMAS})
select (select schema_version from svc_graphql.meta)::int as version, jsonb_build_object(
  'schemas', (select coalesce(jsonb_agg(jsonb_build_object('name', s.nspname, 'comment', obj_description(s.oid, 'pg_namespace'))), '[]') from s),
  'tables', (select coalesce(jsonb_agg(jsonb_build_object(
      'oid', c.oid::int8, 'schema', s.nspname, 'name', c.relname, 'kind', c.relkind, 'rowSecurity', c.relrowsecurity, 'comment', obj_description(c.oid, 'pg_class'),
      'select', ${privs('has_table_privilege', 'c.oid', 'SELECT')},
      'insert', ${privs('has_table_privilege', 'c.oid', 'INSERT')},
      'update', ${privs('has_table_privilege', 'c.oid', 'UPDATE')},
      'delete', ${privs('has_table_privilege', 'c.oid', 'DELETE')},
      'primaryKey', coalesce((select jsonb_agg(a.attname order by k.i) from pg_index x cross join lateral unnest(x.indkey) with ordinality k(attnum, i)
          join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum where x.indrelid = c.oid and x.indisprimary), '[]'),
      'uniques', coalesce((select jsonb_agg((select jsonb_agg(a.attname order by k.i) from unnest(x.indkey) with ordinality k(attnum, i)
          join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum)) from pg_index x where x.indrelid = c.oid and x.indisunique and x.indpred is null), '[]'),
      'columns', (select coalesce(jsonb_agg(jsonb_build_object(
          'name', a.attname, 'num', a.attnum, 'sqlType', format_type(a.atttypid, a.atttypmod),
          'typname', coalesce(et.typname, t.typname), 'typeOid', coalesce(et.oid, t.oid)::int8, 'isArray', et.oid is not null,
          'notNull', a.attnotnull, 'hasDefault', a.atthasdef or a.attidentity <> '', 'generated', a.attgenerated <> '',
          'serial', pg_get_serial_sequence(format('%I.%I', s.nspname, c.relname), a.attname) is not null,
          'composite', coalesce(et.typtype, t.typtype) = 'c',
          'comment', col_description(c.oid, a.attnum),
          'select', ${privs('has_column_privilege', 'c.oid, a.attnum', 'SELECT')},
          'insert', ${privs('has_column_privilege', 'c.oid, a.attnum', 'INSERT')},
          'update', ${privs('has_column_privilege', 'c.oid, a.attnum', 'UPDATE')}) order by a.attnum), '[]')
        from pg_attribute a join pg_type t on t.oid = a.atttypid left join pg_type et on et.oid = t.typelem and t.typcategory = 'A'
        where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped)) order by c.relname), '[]')
    from pg_class c join s on s.oid = c.relnamespace where c.relkind in ('r', 'p', 'v', 'm', 'f') and not c.relispartition),
  'foreignKeys', (select coalesce(jsonb_agg(jsonb_build_object('name', k.conname, 'table', k.conrelid::int8, 'refTable', k.confrelid::int8,
      'comment', obj_description(k.oid, 'pg_constraint'),
      'columns', (select jsonb_agg(a.attname order by u.i) from unnest(k.conkey) with ordinality u(n, i) join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n),
      'refColumns', (select jsonb_agg(a.attname order by u.i) from unnest(k.confkey) with ordinality u(n, i) join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n))
      order by k.conname), '[]')
    from pg_constraint k join pg_class c on c.oid = k.conrelid join s on s.oid = c.relnamespace where k.contype = 'f'),
  'enums', (select coalesce(jsonb_agg(jsonb_build_object('oid', t.oid::int8, 'schema', s.nspname, 'name', t.typname, 'comment', obj_description(t.oid, 'pg_type'),
      'labels', (select jsonb_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid))), '[]')
    from pg_type t join s on s.oid = t.typnamespace where t.typtype = 'e'),
  'functions', (select coalesce(jsonb_agg(jsonb_build_object('oid', p.oid::int8, 'schema', s.nspname, 'name', p.proname,
      'argNames', coalesce(to_jsonb(p.proargnames), '[]'), 'argTypes', to_jsonb(p.proargtypes::oid[]::int8[]),
      'argSqlTypes', (select coalesce(jsonb_agg(format_type(x, null) order by i), '[]') from unnest(p.proargtypes::oid[]) with ordinality u(x, i)),
      'defaults', p.pronargdefaults, 'returnType', p.prorettype::int8, 'returnSqlType', format_type(p.prorettype, null),
      'returnTypname', rt.typname, 'returnsSet', p.proretset, 'rows', p.prorows, 'volatility', p.provolatile, 'comment', obj_description(p.oid, 'pg_proc'),
      'execute', ${privs('has_function_privilege', 'p.oid', 'EXECUTE')})), '[]')
    from pg_proc p join s on s.oid = p.pronamespace join pg_type rt on rt.oid = p.prorettype
    where p.prokind = 'f' and p.pronargs = coalesce(array_length(p.proargmodes, 1), p.pronargs) and not exists (select from pg_depend d where d.objid = p.oid and d.deptype = 'e')),
  'types', (select coalesce(jsonb_object_agg(t.oid::text, jsonb_build_object('typname', t.typname, 'relid', t.typrelid::int8,
      'isArray', t.typcategory = 'A', 'elemTypname', et.typname, 'elemOid', coalesce(et.oid, t.oid)::int8)), '{}')
    from pg_type t left join pg_type et on et.oid = t.typelem and t.typcategory = 'A'
    where t.oid in (select unnest(p.proargtypes::oid[] || p.prorettype) from pg_proc p join s on s.oid = p.pronamespace))
) as catalog`;

/** Reads the exposed schemas' catalog with the schema version it belongs to. */
export async function reflect(client: SqlClient): Promise<Reflection> {
  const { rows } = await client.query(REFLECTION_SQL);
  const row = rows[0] as { version: number; catalog: Omit<Reflection, 'version'> };
  return { version: Number(row.version), ...row.catalog };
}

/** Parses a `@graphql({...})` comment directive; {} when there is none or it is not valid JSON. */
export function directiveOf(comment: string | null | undefined): Record<string, unknown> {
  if (!comment) return {};
  const start = comment.indexOf('@graphql(');
  if (start < 0) return {};
  const text = comment.slice(start + '@graphql('.length);
  const end = text.lastIndexOf(')');
  if (end < 0) return {};
  try {
    const value: unknown = JSON.parse(text.slice(0, end));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
