import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS_DIR, migrationFiles } from '../db/migrate';

/** The format a backup file declares; a restore refuses any other. */
export const BACKUP_FORMAT = 'svc-backup/1';

/** The first entry of a backup, read before anything is written, and the last (`manifest.json`), which adds every file's size and checksum. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  svc_version: string;
  /** The last migration applied to the backed-up database (its number). */
  schema_version: number;
  migrations: string[];
  created_at: string;
  /** `embedded`: the PGlite files are in the backup; `server`: SVC_PROJECT_DATABASE_URL, backed up with pg_dump by the operator; `none`: not created yet. */
  project_database: 'embedded' | 'server' | 'none';
  /** Keys the backed-up service took from its environment, not from files in the backup: the operator keeps them (the master key seals webhook and integration secrets). */
  environment_secrets: ('SVC_MASTER_KEY' | 'SVC_PROJECT_JWT_SECRET')[];
  /** Every file under `data/`, in archive order (only in the closing manifest). */
  files?: { path: string; size: number; sha256: string }[];
  /** Every directory under `data/` (only in the closing manifest). */
  directories?: string[];
}

/** A backup or restore that cannot go on, with the message for the operator. */
export class BackupError extends Error {}

/** Archive names: the opening header, the closing manifest, and the folder holding the data directory. */
export const HEADER_ENTRY = 'svc-backup.json';
export const MANIFEST_ENTRY = 'manifest.json';
export const DATA_PREFIX = 'data/';

/** This release's version (service/package.json). */
export function svcVersion(): string {
  const file = path.join(__dirname, '..', '..', 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

/** The highest migration number this release has. */
export function latestSchemaVersion(dir = MIGRATIONS_DIR): number {
  return Math.max(0, ...migrationFiles(dir).map((f) => Number(f.slice(0, 4))));
}
