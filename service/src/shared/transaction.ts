/** Runs `work` in one SQLite transaction (a savepoint when already inside one) that holds the write lock from its start. */
export type Transaction = <T>(work: () => T) => T;
