import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { ProjectDatabase } from './project.database';
import type { SqlResult } from './project.driver';
import { snapshotProjectDatabase } from './project.snapshot';

/** Where a running service accepts SQL from the CLI: a socket only the data directory's owner can open. */
export function localSqlPath(dataDir: string): string {
  return path.join(dataDir, 'project.sock');
}

const MAX_REQUEST = 16 * 1024 * 1024;

/**
 * Serves `svc project sql` while the service runs: the embedded database can only be opened by one
 * process, so the CLI sends its SQL here. One JSON line in ({sql}, or {snapshot: true} from `svc backup`), one JSON line out.
 */
export async function serveLocalSql(project: ProjectDatabase, dataDir: string): Promise<{ close(): Promise<void> }> {
  const file = localSqlPath(dataDir);
  if (fs.existsSync(file)) {
    const live = await sendLocalSql(file, 'select 1').then(
      () => true,
      () => false,
    );
    if (live) throw new Error(`another service is using ${dataDir}`);
    fs.rmSync(file, { force: true });
  }
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_REQUEST) return socket.destroy();
      const nl = buffer.indexOf('\n');
      if (nl < 0) return;
      socket.removeAllListeners('data');
      let sql = '';
      let snapshot = false;
      try {
        const request = JSON.parse(buffer.slice(0, nl)) as { sql?: unknown; snapshot?: unknown };
        sql = String(request.sql ?? '');
        snapshot = request.snapshot === true;
      } catch {
        socket.end(`${JSON.stringify({ error: 'bad request' })}\n`);
        return;
      }
      const fail = (err: unknown) => socket.end(`${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
      if (snapshot) {
        snapshotProjectDatabase(project, dataDir).then((dir) => socket.end(`${JSON.stringify({ snapshot: dir })}\n`), fail);
        return;
      }
      project.sql(sql).then((results) => socket.end(`${JSON.stringify({ results })}\n`), fail);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const previous = process.umask(0o177);
    server.listen(file, () => {
      process.umask(previous);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(file, { force: true });
      }),
  };
}

/** Sends SQL to a running service's socket; rejects with code ENOENT/ECONNREFUSED when none listens. */
export async function sendLocalSql(file: string, sql: string, timeoutMs = 60_000): Promise<SqlResult[]> {
  return (await ask<{ results?: SqlResult[] }>(file, { sql }, timeoutMs)).results ?? [];
}

/**
 * Asks a running service for a consistent copy of its embedded project database (see snapshotProjectDatabase);
 * resolves with the `.backup-*` directory it wrote in the data directory, which the caller removes.
 */
export async function requestLocalSnapshot(file: string, timeoutMs = 600_000): Promise<string> {
  const { snapshot } = await ask<{ snapshot?: string }>(file, { snapshot: true }, timeoutMs);
  if (typeof snapshot !== 'string') throw new Error('the running service cannot copy its project database: upgrade it or stop it');
  return snapshot;
}

function ask<T>(file: string, request: object, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(file);
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('the service did not answer')));
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        const parsed = JSON.parse(answer) as T & { error?: string };
        if (parsed.error !== undefined) reject(Object.assign(new Error(parsed.error), { code: 'SQL_ERROR' }));
        else resolve(parsed);
      } catch {
        reject(new Error('the service gave an unreadable answer'));
      }
    });
  });
}
