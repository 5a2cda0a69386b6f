import fs from 'node:fs';
import { PGlite, type Results, type Transaction } from '@electric-sql/pglite';
import type { ProjectDriver, SqlClient, SqlResult } from './project.driver';

function resultOf(r: Results): SqlResult {
  return { rows: r.rows as Record<string, unknown>[], affectedRows: r.affectedRows ?? 0 };
}

/** The embedded PostgreSQL (WebAssembly, one connection: PGlite serialises transactions itself). */
export async function openPgliteDriver(dataDir: string): Promise<ProjectDriver> {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  return {
    kind: 'pglite',
    transaction<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
      return db.transaction(async (tx: Transaction) => fn({ query: async (sql, params) => resultOf(await tx.query(sql, params as unknown[])) }));
    },
    async script(sql) {
      return (await db.exec(sql)).map(resultOf);
    },
    async close() {
      await db.close();
    },
  };
}
