import type { Db } from '../db/connection';

/** A stored answer to a request made with an Idempotency-Key. */
export interface IdempotencyRow {
  api_key_id: string;
  idempotency_key: string;
  request_fingerprint: string;
  status_code: number;
  response_body: string;
  created_at_ms: number;
}

/** SQL access to the idempotency_keys table. */
export class IdempotencyRepo {
  private readonly findStmt;
  private readonly insertStmt;
  private readonly purgeStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare<[string, string, number], IdempotencyRow>(
      'SELECT * FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ? AND created_at_ms > ?',
    );
    this.insertStmt = db.prepare(`INSERT OR REPLACE INTO idempotency_keys
      (api_key_id, idempotency_key, request_fingerprint, status_code, response_body, created_at_ms)
      VALUES (@api_key_id, @idempotency_key, @request_fingerprint, @status_code, @response_body, @created_at_ms)`);
    this.purgeStmt = db.prepare('DELETE FROM idempotency_keys WHERE created_at_ms <= ?');
  }

  /** The answer stored after `since` (epoch ms) for this key and Idempotency-Key. */
  find(apiKeyId: string, key: string, since: number): IdempotencyRow | undefined {
    return this.findStmt.get(apiKeyId, key, since);
  }

  insert(row: IdempotencyRow): void {
    this.insertStmt.run(row);
  }

  /** Deletes answers stored at or before `before`; returns how many. */
  purge(before: number): number {
    return this.purgeStmt.run(before).changes;
  }
}
