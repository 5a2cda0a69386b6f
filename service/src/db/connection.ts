import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Transaction } from '../shared/transaction';

/** The service's SQLite handle. */
export type Db = Database.Database;

/** Opens (creating if needed) the database file with the pragmas the service relies on; the directory is created 0700, the files are 0600. */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // SQLite gives the -wal and -shm files the mode of the database file, so creating it 0600 covers all three.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    restrictToOwner(file);
  }
  const db = new Database(file);
  // busy_timeout must come before WAL: switching the journal mode itself may wait for a lock
  // held by another process (the `svc` CLI writing keys while the service runs).
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  // In WAL mode NORMAL loses no committed transaction when the process dies (only on power loss),
  // and it saves an fsync per commit.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  if (file !== ':memory:') for (const suffix of ['-wal', '-shm']) restrictToOwner(file + suffix);
  return db;
}

// Files of a database created by an older version (0644) are tightened on open; they hold emails and transcripts.
function restrictToOwner(file: string): void {
  try {
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** The transaction runner of a database. */
export function transactionOf(db: Db): Transaction {
  // IMMEDIATE: a transaction that reads before it writes cannot be rescued by the busy timeout once
  // another connection (the CLI) has committed in between (SQLITE_BUSY_SNAPSHOT); taking the write
  // lock first makes it wait instead.
  return (work) => db.transaction(work).immediate();
}
