import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import type { Config } from '../config';
import { openDatabase } from '../db/connection';
import { ProjectDatabase } from '../project/project.database';
import { snapshotProjectDatabase } from '../project/project.snapshot';
import { localSqlPath, requestLocalSnapshot } from '../project/project.socket';
import { BACKUP_FORMAT, BackupError, DATA_PREFIX, HEADER_ENTRY, MANIFEST_ENTRY, svcVersion, type BackupManifest } from './backup.manifest';
import { TarWriter } from './backup.tar';

// What the data directory holds that is copied another way (the databases) or not at all (the socket, the running service's record, lock, temporary copies).
const TOP_LEVEL_SKIPPED = new Set([
  'svc.sqlite',
  'svc.sqlite-wal',
  'svc.sqlite-shm',
  'svc.sqlite-journal',
  'project',
  'project.sock',
  'running-service.json',
]);
const TEMPORARY = /^\.(backup-|svc-backup-|svc-restore-)/;
// One backup step copies every page: a single read transaction, so writers elsewhere cannot make it start over.
const ALL_PAGES = 0x7fffffff;

/** What `createBackup` wrote. */
export interface BackupOutcome {
  manifest: BackupManifest;
  bytes: number;
  /** Entries of the data directory left out (sockets, symbolic links), for the operator. */
  skipped: string[];
}

/**
 * Writes a backup of the data directory to `file` (gzip'd tar, mode 0600, written to `file.partial` and renamed): the
 * SQLite database through SQLite's online backup, the embedded project database (copied by the running service when
 * there is one), then every other file (master key, project JWT secret, recordings, certificates). Safe while the
 * service runs and writes.
 */
export async function createBackup(config: Config, file: string): Promise<BackupOutcome> {
  const dataDir = config.dataDir;
  if (!fs.existsSync(config.databasePath)) throw new BackupError(`no svc data in ${dataDir} (${config.databasePath} is missing)`);
  const target = path.resolve(file);
  if (!fs.existsSync(path.dirname(target))) throw new BackupError(`the folder of ${target} does not exist`);
  const partial = `${target}.partial`;
  const createdAt = new Date().toISOString();
  const staging = await fs.promises.mkdtemp(path.join(path.dirname(target), '.svc-backup-'));
  let projectCopy: string | undefined;
  try {
    const sqliteCopy = path.join(staging, 'svc.sqlite');
    const source = openDatabase(config.databasePath);
    try {
      await source.backup(sqliteCopy, { progress: () => ALL_PAGES });
    } finally {
      source.close();
    }
    const migrations = appliedMigrations(sqliteCopy, config.databasePath);

    let projectDatabase: BackupManifest['project_database'] = 'none';
    if (config.project.databaseUrl) projectDatabase = 'server';
    else if (fs.existsSync(path.join(ProjectDatabase.dataDirOf(dataDir), 'PG_VERSION'))) {
      projectDatabase = 'embedded';
      projectCopy = await copyProjectDatabase(config);
    }

    const header: BackupManifest = {
      format: BACKUP_FORMAT,
      svc_version: svcVersion(),
      schema_version: migrations.length > 0 ? Number(migrations[migrations.length - 1]!.slice(0, 4)) : 0,
      migrations,
      created_at: createdAt,
      project_database: projectDatabase,
      environment_secrets: [
        ...(config.masterKey ? (['SVC_MASTER_KEY'] as const) : []),
        ...(config.project.jwtSecret ? (['SVC_PROJECT_JWT_SECRET'] as const) : []),
      ],
    };

    await fs.promises.rm(partial, { force: true });
    const out = fs.createWriteStream(partial, { mode: 0o600, flags: 'wx' });
    const gzip = zlib.createGzip({ level: 6 });
    gzip.pipe(out);
    const written = finished(out);
    gzip.on('error', (err) => out.destroy(err));
    const tar = new TarWriter(gzip);
    const files: NonNullable<BackupManifest['files']> = [];
    const directories: string[] = [];
    const skipped: string[] = [];
    const add = async (name: string, from: string) => {
      try {
        files.push({ path: name, ...(await tar.file(name, from)) });
      } catch (err) {
        // A file removed between listing and copying (a recording deleted meanwhile) is simply not in the backup.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    };
    // The backup's own files are left out wherever they are (FILE may be inside the data directory).
    const own = new Set([target, partial, staging]);
    const addTree = async (dir: string, prefix: string, skip: (name: string) => boolean) => {
      for (const entry of (await fs.promises.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
        const from = path.join(dir, entry.name);
        if (skip(entry.name) || own.has(from)) continue;
        const name = `${prefix}${entry.name}`;
        if (entry.isDirectory()) {
          directories.push(name);
          await tar.directory(name);
          await addTree(from, `${name}/`, () => false);
        } else if (entry.isFile()) await add(name, from);
        else skipped.push(from);
      }
    };
    try {
      await tar.buffer(HEADER_ENTRY, json(header));
      await add(`${DATA_PREFIX}svc.sqlite`, sqliteCopy);
      if (projectCopy) {
        directories.push(`${DATA_PREFIX}project`);
        await tar.directory(`${DATA_PREFIX}project`);
        await addTree(projectCopy, `${DATA_PREFIX}project/`, () => false);
      }
      await addTree(dataDir, DATA_PREFIX, (name) => TOP_LEVEL_SKIPPED.has(name) || TEMPORARY.test(name));
      await tar.buffer(MANIFEST_ENTRY, json({ ...header, files, directories }));
      await tar.finish();
      gzip.end();
      await written;
      const handle = await fs.promises.open(partial, 'r');
      await handle.sync();
      await handle.close();
      await fs.promises.rename(partial, target);
    } catch (err) {
      gzip.destroy();
      out.destroy();
      await fs.promises.rm(partial, { force: true });
      throw err;
    }
    return { manifest: { ...header, files, directories }, bytes: fs.statSync(target).size, skipped };
  } finally {
    await fs.promises.rm(staging, { recursive: true, force: true });
    if (projectCopy) await fs.promises.rm(projectCopy, { recursive: true, force: true });
  }
}

/** The embedded project database's files, copied consistently: by the running service over its local socket, or else opened here. */
async function copyProjectDatabase(config: Config): Promise<string> {
  try {
    return await requestLocalSnapshot(localSqlPath(config.dataDir));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ECONNREFUSED') throw err;
  }
  const project = new ProjectDatabase({ dataDir: config.dataDir, baseUrl: config.baseUrl, ...config.project });
  try {
    return await snapshotProjectDatabase(project, config.dataDir);
  } catch (err) {
    throw new BackupError(
      `could not copy the project database (${(err as Error).message}); if the service is starting, try again once it runs`,
    );
  } finally {
    await project.close();
  }
}

/** The migrations recorded in a database file, in order (`shownAs` names it in the error). */
export function appliedMigrations(file: string, shownAs = file): string[] {
  const db = new Database(file, { fileMustExist: true });
  try {
    const known = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get();
    if (!known) throw new BackupError(`${shownAs} is not an svc database (it has no schema_migrations)`);
    return db.prepare('SELECT name FROM schema_migrations ORDER BY version').pluck().all() as string[];
  } finally {
    db.close();
  }
}

function json(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}
