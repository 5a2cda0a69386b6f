import { openPgDriver } from './pg.driver';
import { openPgliteDriver } from './pglite.driver';

/** One result set: the rows and how many rows a write touched. */
export interface SqlResult {
  rows: Record<string, unknown>[];
  affectedRows: number;
}

/** A connection inside a transaction: parameterised statements only. */
export interface SqlClient {
  query(sql: string, params?: readonly unknown[]): Promise<SqlResult>;
}

/** The project database behind one small interface: PGlite in-process or a PostgreSQL server through a pool. */
export interface ProjectDriver {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (client: SqlClient) => Promise<T>): Promise<T>;
  /** Runs a script of one or more statements (no parameters) as the owner; returns each statement's result. */
  script(sql: string): Promise<SqlResult[]>;
  close(): Promise<void>;
}

/** Where the project database lives. */
export interface ProjectDriverOptions {
  /** A postgres:// URL, or undefined for the embedded database. */
  databaseUrl: string | undefined;
  /** The embedded database's directory. */
  dataDir: string;
}

/** Opens the driver the configuration names. */
export async function openProjectDriver(opts: ProjectDriverOptions): Promise<ProjectDriver> {
  return opts.databaseUrl ? openPgDriver(opts.databaseUrl) : openPgliteDriver(opts.dataDir);
}
