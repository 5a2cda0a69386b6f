import fs from 'node:fs';
import path from 'node:path';
import { ProjectDatabase } from './project.database';

// Written by the process that has the database open; a restored copy gets its own.
const NOT_COPIED = new Set(['svc.lock', 'postmaster.pid']);

/**
 * Copies the embedded project database's files into a new directory `.backup-*` in the data directory and returns
 * it. The copy is taken inside a transaction after a checkpoint: PGlite runs one transaction at a time and has no
 * background writers, so no file changes while it is copied (what PGlite's own dumpDataDir relies on).
 */
export async function snapshotProjectDatabase(project: ProjectDatabase, dataDir: string): Promise<string> {
  if (project.kind !== 'pglite') throw new Error('the project database is a PostgreSQL server: back it up with pg_dump');
  const source = ProjectDatabase.dataDirOf(dataDir);
  const target = await fs.promises.mkdtemp(path.join(dataDir, '.backup-'));
  try {
    await project.asOwner(async (client) => {
      await client.query('checkpoint');
      await fs.promises.cp(source, target, { recursive: true, filter: (from) => from === source || !NOT_COPIED.has(path.basename(from)) });
    });
    return target;
  } catch (err) {
    await fs.promises.rm(target, { recursive: true, force: true });
    throw err;
  }
}
