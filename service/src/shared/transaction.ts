import type { Db } from '../db/connection';

/** Runs `work` in one SQLite transaction (a savepoint when already inside one) that holds the write lock from its start. */
export type Transaction = <T>(work: () => T) => T;

/** The transaction runner of a database. */
export function transactionOf(db: Db): Transaction {
  // IMMEDIATE: a transaction that reads before it writes cannot be rescued by the busy timeout once
  // another connection (the CLI) has committed in between (SQLITE_BUSY_SNAPSHOT); taking the write
  // lock first makes it wait instead.
  return (work) => db.transaction(work).immediate();
}
