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
  /**
   * Runs `fn` in one transaction on one connection; commits when it resolves, rolls back when it throws.
   * `setup`, a script without parameters (values quoted with `quoteLiteral`), runs right after `begin` in the
   * same round trip; `fn` gets the result of its last statement. With `statementTimeoutMs`, each statement of the
   * transaction fails with SQLSTATE 57014 once it runs longer than that (the server cancels it; PGlite's thread is replaced).
   */
  transaction<T>(
    fn: (client: SqlClient, setup: SqlResult | undefined) => Promise<T>,
    setup?: string,
    statementTimeoutMs?: number,
  ): Promise<T>;
  /** Runs a script of one or more statements (no parameters) as the owner; returns each statement's result. */
  script(sql: string): Promise<SqlResult[]>;
  close(): Promise<void>;
}

/**
 * A string as an SQL literal, for the scripts that cannot take parameters. As libpq's `PQescapeLiteral`: quotes
 * doubled, and backslashes doubled in an `E''` literal, so the text is the same whatever `standard_conforming_strings` is.
 */
export function quoteLiteral(value: string): string {
  if (value.includes('\0')) throw new Error('A literal cannot contain a NUL character');
  const quoted = `'${value.replace(/'/g, "''")}'`;
  return value.includes('\\') ? ` E${quoted.replace(/\\/g, '\\\\')}` : quoted;
}
