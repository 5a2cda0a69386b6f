import { AppError } from '../shared/errors';
import type { SqlClient, SqlResult } from './project.driver';

/** A table of the public schema and whether row-level security guards it. */
export interface TableRls {
  schema: string;
  name: string;
  rls_enabled: boolean;
}

/**
 * The public schema's tables with their row-level security flag. Supabase's default privileges grant every new
 * table there to anon and authenticated, so a table without RLS is readable and writable with the public anon key.
 */
export const TABLES_RLS_SQL = `select n.nspname as schema, c.relname as name, c.relrowsecurity as rls_enabled
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
  order by c.relname`;

/** An identifier quoted for SQL (as PostgreSQL's quote_ident, always quoted). */
export function quoteIdent(name: string): string {
  if (name.length === 0 || name.includes('\0')) throw new Error('An identifier must be non-empty and contain no NUL character');
  return `"${name.replace(/"/g, '""')}"`;
}

/** The rows of TABLES_RLS_SQL as records. */
export function tablesOf(result: SqlResult | undefined): TableRls[] {
  return (result?.rows ?? []).map((r) => ({ schema: String(r.schema), name: String(r.name), rls_enabled: r.rls_enabled === true }));
}

/** Lists the public schema's tables with their RLS flag (run as the owner). */
export async function listTablesRls(client: SqlClient): Promise<TableRls[]> {
  return tablesOf(await client.query(TABLES_RLS_SQL));
}

/** Turns row-level security on for `public.<name>` (run as the owner); 404 when there is no such table. */
export async function enableRls(client: SqlClient, name: string): Promise<TableRls> {
  const table = (await listTablesRls(client)).find((t) => t.name === name);
  if (!table) throw AppError.notFound(`Table public.${name}`);
  if (!table.rls_enabled) await client.query(`alter table ${quoteIdent(table.schema)}.${quoteIdent(table.name)} enable row level security`);
  return { ...table, rls_enabled: true };
}

/** The one-line warning about tables without RLS (undefined when there are none), with the fix. */
export function rlsWarning(tables: readonly TableRls[]): string | undefined {
  const open = tables.filter((t) => !t.rls_enabled);
  if (open.length === 0) return undefined;
  const names = open.map((t) => `${t.schema}.${t.name}`);
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
  const first = open[0]!;
  return (
    `${open.length === 1 ? '1 table has' : `${open.length} tables have`} row-level security off, so anyone with the anon key ` +
    `reads and writes ${open.length === 1 ? 'it' : 'them'}: ${shown}. Enable it (then add policies): ` +
    `alter table ${quoteIdent(first.schema)}.${quoteIdent(first.name)} enable row level security;`
  );
}
