import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** The service's SQLite handle. */
export type Db = Database.Database;

/** Opens (creating if needed) the database file with the pragmas the service relies on. */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  // busy_timeout must come before WAL: switching the journal mode itself may wait for a lock
  // held by another process (the `svc` CLI writing keys while the service runs).
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  // In WAL mode NORMAL loses no committed transaction when the process dies (only on power loss),
  // and it saves an fsync per commit.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return db;
}
