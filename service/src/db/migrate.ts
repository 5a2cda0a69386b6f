import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './connection';

/** Where this release's migrations are. */
export const MIGRATIONS_DIR = path.join(__dirname, 'migrations');

/** The migration files in `dir`, in the order they apply. */
export function migrationFiles(dir = MIGRATIONS_DIR): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
}

/**
 * Applies, in order and each in its own transaction, the numbered migrations not yet applied; foreign keys are
 * checked before each commit. A database a newer release migrated is refused (an older one would misread it).
 */
export function migrate(db: Db, dir = MIGRATIONS_DIR): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const files = migrationFiles(dir);
  const known = Math.max(0, ...files.map((file) => Number(file.slice(0, 4))));
  const newest = Math.max(0, ...applied);
  if (newest > known) {
    throw new Error(
      `the database is at schema version ${newest}, written by a newer svc; this one knows versions up to ${known}: ` +
        'run the newer release, or restore a backup this release made',
    );
  }
  const newlyApplied: string[] = [];
  const foreignKeys = db.pragma('foreign_keys', { simple: true });
  // SQLite's way to rebuild a table that others reference: foreign keys off (only possible outside a
  // transaction), rebuild, then foreign_key_check before committing.
  db.pragma('foreign_keys = OFF');
  try {
    for (const file of files) {
      const version = Number(file.slice(0, 4));
      if (applied.has(version)) continue;
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      db.transaction(() => {
        db.exec(sql);
        const violations = db.pragma('foreign_key_check') as unknown[];
        if (violations.length > 0) throw new Error(`${file} breaks ${violations.length} foreign key reference(s)`);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          version,
          file,
          new Date().toISOString(),
        );
      }).immediate();
      newlyApplied.push(file);
    }
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
  return newlyApplied;
}
