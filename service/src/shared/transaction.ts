import type { Db } from '../db/connection';

/** Runs `work` in one SQLite transaction (a savepoint when already inside one). */
export type Transaction = <T>(work: () => T) => T;

/** The transaction runner of a database. */
export function transactionOf(db: Db): Transaction {
  return (work) => db.transaction(work)();
}
