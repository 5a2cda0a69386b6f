import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './connection';

const MIGRATIONS_DIR = path.join(__dirname, 'migrations');

/** Applies, in order and each in its own transaction, the numbered migrations not yet applied. */
export function migrate(db: Db, dir = MIGRATIONS_DIR): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const newlyApplied: string[] = [];
  for (const file of files) {
    const version = Number(file.slice(0, 4));
    if (applied.has(version)) continue;
    const sql = fs.readFileSync(path.join(dir, file), 'utf8');
    // A migration that rebuilds a referenced table (SQLite's 12-step ALTER) asks for foreign keys off; it cannot change inside a transaction.
    const keysOff = sql.startsWith('-- svc:foreign_keys=off');
    if (keysOff) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        db.exec(sql);
        if (keysOff && (db.pragma('foreign_key_check') as unknown[]).length > 0) throw new Error(`${file} leaves broken foreign keys`);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          version,
          file,
          new Date().toISOString(),
        );
      })();
    } finally {
      if (keysOff) db.pragma('foreign_keys = ON');
    }
    newlyApplied.push(file);
  }
  return newlyApplied;
}
