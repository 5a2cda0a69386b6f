import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ProjectDriver, SqlClient, SqlResult } from './project.driver';

/**
 * PGlite runs in a worker thread: its WebAssembly work stays off the HTTP event loop, and its loader's
 * dynamic imports run in plain Node (also under jest's module sandbox). One connection, so transactions
 * are queued here, one at a time.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglite);
let db;
const ready = PGlite.create(workerData.dataDir).then((d) => { db = d; });
const plain = (r) => ({ rows: r.rows, affectedRows: r.affectedRows || 0 });
parentPort.on('message', async ({ id, op, sql, params }) => {
  try {
    await ready;
    let result;
    if (op === 'begin-query') await db.exec('begin');
    if (op === 'begin-exec') { const all = (await db.exec('begin; ' + sql)).map(plain); result = all[all.length - 1]; }
    if (op === 'query' || op === 'begin-query') result = plain(await db.query(sql, params));
    else if (op === 'commit' || op === 'rollback') result = (await db.exec(op)).map(plain);
    else if (op === 'exec') result = (await db.exec(sql)).map(plain);
    else if (op === 'close') { await db.close(); result = null; }
    parentPort.postMessage({ id, result });
  } catch (err) {
    const e = err || {};
    parentPort.postMessage({ id, error: { message: String(e.message || e), code: e.code, detail: e.detail } });
  }
});
ready.catch(() => undefined);
`;

interface Reply {
  id: number;
  result?: unknown;
  error?: { message: string; code?: string; detail?: string };
}

/** PGlite is one process's database: a second process opening the directory would corrupt it. */
function takeLock(dataDir: string): string {
  const file = path.join(dataDir, 'svc.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new Error(`the embedded project database in ${dataDir} is in use by process ${pid}`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Opens the embedded PostgreSQL in `dataDir` (created when missing). */
export async function openPgliteDriver(dataDir: string): Promise<ProjectDriver> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = takeLock(dataDir);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { dataDir, pglite: require.resolve('@electric-sql/pglite') } });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failed: Error | undefined;
  worker.on('message', (reply: Reply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (!waiter) return;
    if (reply.error) waiter.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code, detail: reply.error.detail }));
    else waiter.resolve(reply.result);
  });
  worker.on('error', (err) => {
    failed = err;
    for (const w of pending.values()) w.reject(err);
    pending.clear();
  });
  const call = <T>(op: string, sql = '', params: readonly unknown[] = []): Promise<T> => {
    if (failed) return Promise.reject(failed);
    return new Promise<T>((resolve, reject) => {
      nextId += 1;
      pending.set(nextId, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id: nextId, op, sql, params });
    });
  };
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };
  try {
    await call('query', 'select 1');
  } catch (err) {
    await worker.terminate();
    fs.rmSync(lock, { force: true });
    throw err;
  }
  return {
    kind: 'pglite',
    transaction<T>(fn: (c: SqlClient, setup: SqlResult | undefined) => Promise<T>, setup?: string): Promise<T> {
      return serialized(async () => {
        // `begin` travels with the setup script, or else with the first statement: one message to the worker fewer.
        let begun = false;
        let setupResult: SqlResult | undefined;
        const client: SqlClient = {
          query: (sql, params) => {
            const op = begun ? 'query' : 'begin-query';
            begun = true;
            return call<SqlResult>(op, sql, params ?? []);
          },
        };
        try {
          if (setup) {
            begun = true;
            setupResult = await call<SqlResult>('begin-exec', setup);
          }
          const value = await fn(client, setupResult);
          if (begun) await call('commit');
          return value;
        } catch (err) {
          if (begun) await call('rollback').catch(() => undefined);
          throw err;
        }
      });
    },
    script(sql) {
      return serialized(() => call<SqlResult[]>('exec', sql));
    },
    async close() {
      await serialized(() => call('close')).catch(() => undefined);
      await worker.terminate();
      fs.rmSync(lock, { force: true });
    },
  };
}
