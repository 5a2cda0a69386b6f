import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import {
  BACKUP_FORMAT,
  BackupError,
  DATA_PREFIX,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  latestSchemaVersion,
  svcVersion,
  type BackupManifest,
} from './backup.manifest';
import { CorruptArchiveError, readTar, type EntryDigest, type TarEntry } from './backup.tar';

/**
 * Restores the backup `file` into `dataDir`, which must be missing or empty. Everything is written to a folder beside
 * it first and checked against the backup's manifest (sizes, SHA-256, nothing missing or extra, the SQLite database
 * intact); only then is that folder renamed to `dataDir`. A backup of a newer schema than this release knows is refused
 * before anything is written.
 */
export async function restoreBackup(file: string, dataDir: string, knownSchema = latestSchemaVersion()): Promise<BackupManifest> {
  const target = path.resolve(dataDir);
  refuseNonEmpty(target);
  const source = path.resolve(file);
  let input: fs.ReadStream;
  try {
    await fs.promises.access(source, fs.constants.R_OK);
    input = fs.createReadStream(source);
  } catch (err) {
    throw new BackupError(`cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = await fs.promises.mkdtemp(path.join(path.dirname(target), '.svc-restore-'));
  try {
    const gunzip = zlib.createGunzip();
    input.on('error', (err) => gunzip.destroy(err));
    input.pipe(gunzip);
    let manifest: BackupManifest;
    try {
      manifest = await extract(readTar(gunzip), staging, knownSchema);
    } catch (err) {
      input.destroy();
      if (err instanceof BackupError) throw err;
      const reason = err instanceof CorruptArchiveError ? err.message : ((err as NodeJS.ErrnoException).code ?? (err as Error).message);
      throw new BackupError(`${source} is not a complete svc backup (${reason})`);
    }
    checkDatabase(path.join(staging, 'svc.sqlite'), manifest);
    refuseNonEmpty(target);
    if (fs.existsSync(target)) fs.rmdirSync(target);
    fs.renameSync(staging, target);
    return manifest;
  } finally {
    await fs.promises.rm(staging, { recursive: true, force: true });
  }
}

function refuseNonEmpty(target: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new BackupError(`${target} is a file, not a data directory`);
    throw err;
  }
  if (names.length > 0) {
    throw new BackupError(
      `${target} is not empty: restore only into an empty or new data directory (set SVC_DATA_DIR), so nothing of another installation is mixed in`,
    );
  }
}

async function extract(entries: AsyncGenerator<TarEntry>, staging: string, knownSchema: number): Promise<BackupManifest> {
  const first = await entries.next();
  if (first.done || first.value.name !== HEADER_ENTRY || first.value.type !== 'file') {
    throw new CorruptArchiveError(`it does not start with ${HEADER_ENTRY}`);
  }
  const header = parseManifest(await first.value.read());
  if (header.schema_version > knownSchema) {
    throw new BackupError(
      `the backup was made by svc ${header.svc_version} at schema version ${header.schema_version}; this svc (${svcVersion()}) knows schema versions up to ${knownSchema}: restore it with that release or a newer one`,
    );
  }
  const files = new Map<string, EntryDigest>();
  const directories = new Set<string>();
  let manifest: BackupManifest | undefined;
  for await (const entry of entries) {
    if (manifest) throw new CorruptArchiveError(`${entry.name} follows ${MANIFEST_ENTRY}`);
    if (entry.name === MANIFEST_ENTRY && entry.type === 'file') {
      manifest = parseManifest(await entry.read());
      continue;
    }
    const relative = dataPath(entry.name);
    const to = path.join(staging, relative);
    if (entry.type === 'directory') {
      fs.mkdirSync(to, { recursive: true, mode: 0o700 });
      directories.add(entry.name);
    } else {
      if (files.has(entry.name)) throw new CorruptArchiveError(`${entry.name} appears twice`);
      fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
      files.set(entry.name, await entry.pipeTo(to));
    }
  }
  if (!manifest) throw new CorruptArchiveError(`${MANIFEST_ENTRY} is missing: the file was cut short`);
  if (manifest.schema_version !== header.schema_version || manifest.created_at !== header.created_at) {
    throw new CorruptArchiveError(`${MANIFEST_ENTRY} does not match ${HEADER_ENTRY}`);
  }
  const listed = manifest.files ?? [];
  for (const f of listed) {
    const got = files.get(f.path);
    if (!got) throw new CorruptArchiveError(`${f.path} is missing`);
    if (got.size !== f.size || got.sha256 !== f.sha256) throw new CorruptArchiveError(`${f.path} does not match its checksum`);
  }
  if (listed.length !== files.size) throw new CorruptArchiveError('it holds files its manifest does not list');
  const listedDirs = new Set(manifest.directories ?? []);
  if (listedDirs.size !== directories.size || [...directories].some((d) => !listedDirs.has(d))) {
    throw new CorruptArchiveError('its folders do not match its manifest');
  }
  if (!files.has(`${DATA_PREFIX}svc.sqlite`)) throw new CorruptArchiveError('it holds no svc.sqlite');
  return manifest;
}

function parseManifest(text: Buffer): BackupManifest {
  let parsed: BackupManifest;
  try {
    parsed = JSON.parse(text.toString('utf8')) as BackupManifest;
  } catch {
    throw new CorruptArchiveError('its manifest is not JSON');
  }
  if (parsed?.format !== BACKUP_FORMAT)
    throw new BackupError(`it is not an ${BACKUP_FORMAT} file (format ${JSON.stringify(parsed?.format)})`);
  if (!Number.isSafeInteger(parsed.schema_version)) throw new CorruptArchiveError('its manifest has no schema version');
  return parsed;
}

/** The path below the data directory an archive name stands for; anything that could escape it is refused. */
function dataPath(name: string): string {
  if (!name.startsWith(DATA_PREFIX)) throw new CorruptArchiveError(`unexpected entry ${name}`);
  const parts = name.slice(DATA_PREFIX.length).split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\') || p.includes('\u0000'))) {
    throw new CorruptArchiveError(`unsafe entry name ${name}`);
  }
  return parts.join(path.sep);
}

function checkDatabase(file: string, manifest: BackupManifest): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the database in the backup is damaged (${String(check)})`);
    const version = db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() as number | null;
    if ((version ?? 0) !== manifest.schema_version)
      throw new BackupError('the database in the backup does not have the schema its manifest names');
  } finally {
    db.close();
  }
}
