import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { isAlive } from '../shared/running-service';
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
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new Error(`the embedded project database in ${dataDir} is in use by process ${pid}`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

/** A statement cut off by the statement timeout, with Postgres's own message and SQLSTATE; its thread is gone with its transaction. */
class StatementCutOff extends Error {
  readonly code = '57014';

  constructor() {
    super('canceling statement due to statement timeout');
  }
}

/** One PGlite worker thread and the calls waiting for its replies. */
interface PgliteThread {
  /** Sends one operation; with `timeoutMs`, a statement still running then is cut off by ending the thread. */
  call<T>(op: string, sql?: string, params?: readonly unknown[], timeoutMs?: number): Promise<T>;
  terminate(): Promise<void>;
}

/**
 * Starts a worker thread on `dataDir` and waits until the database answers. PGlite has no way to cancel a
 * running statement (its WebAssembly runs synchronously and its timers are JavaScript timers that cannot fire
 * meanwhile), so a statement past its timeout ends the thread: `onCutOff` then opens a new one.
 */
async function startThread(dataDir: string, onCutOff: (thread: PgliteThread) => void): Promise<PgliteThread> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { dataDir, pglite: require.resolve('@electric-sql/pglite') } });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer?: NodeJS.Timeout }>();
  let nextId = 0;
  let failed: Error | undefined;
  const settle = (id: number) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (waiter?.timer) clearTimeout(waiter.timer);
    return waiter;
  };
  const failAll = (err: Error) => {
    failed ??= err;
    for (const id of [...pending.keys()]) settle(id)!.reject(err);
  };
  worker.on('message', (reply: Reply) => {
    const waiter = settle(reply.id);
    if (!waiter) return;
    if (reply.error) waiter.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code, detail: reply.error.detail }));
    else waiter.resolve(reply.result);
  });
  worker.on('error', failAll);
  worker.on('exit', () => failAll(new Error('the embedded project database stopped')));
  const thread: PgliteThread = {
    call<T>(op: string, sql = '', params: readonly unknown[] = [], timeoutMs?: number): Promise<T> {
      if (failed) return Promise.reject(failed);
      return new Promise<T>((resolve, reject) => {
        nextId += 1;
        const id = nextId;
        const timer =
          timeoutMs === undefined
            ? undefined
            : setTimeout(() => {
                settle(id);
                reject(new StatementCutOff());
                failAll(new Error('the embedded project database was restarted after a statement timeout'));
                onCutOff(thread);
              }, timeoutMs);
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
        worker.postMessage({ id, op, sql, params });
      });
    },
    async terminate() {
      await worker.terminate();
    },
  };
  try {
    await thread.call('query', 'select 1');
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  return thread;
}

/** Opens the embedded PostgreSQL in `dataDir` (created when missing). */
export async function openPgliteDriver(dataDir: string): Promise<ProjectDriver> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = takeLock(dataDir);
  let thread: PgliteThread;
  /** Set while a thread that was cut off is replaced; calls wait for the new one. */
  let replacing: Promise<void> | undefined;
  const replace = (old: PgliteThread) => {
    replacing = (async () => {
      await old.terminate();
      thread = await startThread(dataDir, replace);
    })();
  };
  try {
    thread = await startThread(dataDir, replace);
  } catch (err) {
    fs.rmSync(lock, { force: true });
    throw err;
  }
  const call = async <T>(op: string, sql = '', params: readonly unknown[] = [], timeoutMs?: number): Promise<T> => {
    if (replacing) await replacing;
    return thread.call<T>(op, sql, params, timeoutMs);
  };
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    kind: 'pglite',
    transaction<T>(
      fn: (c: SqlClient, setup: SqlResult | undefined) => Promise<T>,
      setup?: string,
      statementTimeoutMs?: number,
    ): Promise<T> {
      return serialized(async () => {
        // `begin` travels with the setup script, or else with the first statement: one message to the worker fewer.
        let begun = false;
        let setupResult: SqlResult | undefined;
        const client: SqlClient = {
          query: (sql, params) => {
            const op = begun ? 'query' : 'begin-query';
            begun = true;
            return call<SqlResult>(op, sql, params ?? [], statementTimeoutMs);
          },
        };
        try {
          if (setup) {
            begun = true;
            setupResult = await call<SqlResult>('begin-exec', setup, [], statementTimeoutMs);
          }
          const value = await fn(client, setupResult);
          if (begun) await call('commit');
          return value;
        } catch (err) {
          if (begun && !(err instanceof StatementCutOff)) await call('rollback').catch(() => undefined);
          throw err;
        }
      });
    },
    script(sql) {
      return serialized(() => call<SqlResult[]>('exec', sql));
    },
    async close() {
      await serialized(() => call('close')).catch(() => undefined);
      await replacing?.catch(() => undefined);
      await thread.terminate();
      fs.rmSync(lock, { force: true });
    },
  };
}
