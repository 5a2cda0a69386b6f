import type { Config } from '../config';
import { createBackup } from './backup.create';
import { BackupError } from './backup.manifest';
import { restoreBackup } from './backup.restore';

/** Usage of `svc backup` and `svc restore`. */
export const BACKUP_USAGE = `  svc backup FILE                  Writes the data directory to FILE (.tar.gz, mode 0600), also while the service
                                   runs: database, project database, recordings, master key. Keep FILE as secret
                                   as the data directory.
  svc restore FILE                 Restores a backup into SVC_DATA_DIR, which must be empty or missing; then start
                                   the service on it. Exit code 1 when refused (not empty, damaged, newer schema).`;

/** Where `svc backup` and `svc restore` write. */
export interface BackupCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs `svc backup FILE` or `svc restore FILE`; returns the exit code (2: usage, 1: refused or failed). */
export async function runBackupCli(argv: string[], config: Config, io: BackupCliIo): Promise<number> {
  const [command, file, ...extra] = argv;
  if (command !== 'backup' && command !== 'restore') throw new Error(`not a backup command: ${command}`);
  if (!file || extra.length > 0 || file.startsWith('-')) {
    io.err(`svc: ${command} takes one argument, the backup file\n\nUsage:\n${BACKUP_USAGE}\n`);
    return 2;
  }
  try {
    if (command === 'backup') {
      const { manifest, bytes, skipped } = await createBackup(config, file);
      for (const entry of skipped) io.err(`svc: left out ${entry} (neither a file nor a folder)\n`);
      if (manifest.project_database === 'server') {
        io.err('svc: the project database is a PostgreSQL server (SVC_PROJECT_DATABASE_URL): back it up with pg_dump\n');
      }
      io.err(
        `backup written to ${file}: ${manifest.files!.length} files, ${(bytes / 1e6).toFixed(1)} MB, schema version ${manifest.schema_version}\n`,
      );
      return 0;
    }
    const manifest = await restoreBackup(file, config.dataDir);
    io.err(
      `restored the backup of ${manifest.created_at} (svc ${manifest.svc_version}, schema version ${manifest.schema_version}) into ${config.dataDir}; start the service on it\n`,
    );
    for (const name of manifest.environment_secrets)
      io.err(`svc: the backed-up service took ${name} from its environment: set the same value\n`);
    if (manifest.project_database === 'server') {
      io.err('svc: the project database was a PostgreSQL server: restore its pg_dump into the server SVC_PROJECT_DATABASE_URL names\n');
    }
    return 0;
  } catch (err) {
    const what = command === 'backup' ? 'backup failed' : err instanceof BackupError ? 'restore refused' : 'restore failed';
    io.err(`svc: ${what}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
