import pg from 'pg';
import type { ProjectDriver, SqlResult } from './project.driver';

function resultOf(r: pg.QueryResult): SqlResult {
  return { rows: r.rows as Record<string, unknown>[], affectedRows: r.rowCount ?? 0 };
}

/** A PostgreSQL server through a `pg` pool; each transaction takes one pooled connection. */
export async function openPgDriver(url: string, max = 10): Promise<ProjectDriver> {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => undefined); // an idle connection dropped by the server; the pool replaces it
  const probe = await pool.connect();
  probe.release();
  return {
    kind: 'postgres',
    async transaction(fn, setup, statementTimeoutMs) {
      const client = await pool.connect();
      let broken = false;
      try {
        // One simple-protocol message: `begin`, the transaction's own timeout and the setup script share a round trip.
        const timeout = statementTimeoutMs === undefined ? '' : `set local statement_timeout = ${Math.floor(statementTimeoutMs)};`;
        const text = ['begin;', timeout, setup ?? ''].join(' ');
        const begun = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
        const setupResult = setup && Array.isArray(begun) ? resultOf(begun[begun.length - 1]!) : undefined;
        const value = await fn({ query: async (sql, params) => resultOf(await client.query(sql, params as unknown[])) }, setupResult);
        await client.query('commit');
        return value;
      } catch (err) {
        await client.query('rollback').catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async script(sql) {
      const client = await pool.connect();
      try {
        const res = (await client.query(sql)) as unknown as pg.QueryResult | pg.QueryResult[];
        return Array.isArray(res) ? res.map(resultOf) : [resultOf(res)];
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
