import type { Db } from '../db/connection';
import type { Scope } from './scopes';

/** An API key as stored: never the key itself, only its lookup part and a hash. */
export interface ApiKeyRow {
  id: string;
  user_id: string;
  organization_id: string | null;
  name: string;
  lookup: string;
  secret_hash: Buffer;
  scopes: Scope[];
  rate_limit_per_second: number | null;
  rate_limit_per_minute: number | null;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  /** When the key last authenticated a request, to the minute. */
  last_used_at: string | null;
}

/** An api_keys row as SQLite returns it (scopes as JSON text). */
export type StoredKeyRow = Omit<ApiKeyRow, 'scopes'> & { scopes: string };

/** SQL access to the api_keys table. */
export class KeysRepo {
  private readonly byId;
  private readonly all;
  private readonly insertStmt;
  private readonly revokeStmt;

  constructor(private readonly db: Db) {
    this.byId = db.prepare<[string], StoredKeyRow>('SELECT * FROM api_keys WHERE id = ?');
    this.all = db.prepare<[], StoredKeyRow>('SELECT * FROM api_keys ORDER BY id');
    this.insertStmt = db.prepare(`INSERT INTO api_keys
      (id, user_id, organization_id, name, lookup, secret_hash, scopes, rate_limit_per_second,
       rate_limit_per_minute, expires_at, revoked_at, created_at)
      VALUES (@id, @user_id, @organization_id, @name, @lookup, @secret_hash, @scopes,
       @rate_limit_per_second, @rate_limit_per_minute, @expires_at, @revoked_at, @created_at)`);
    this.revokeStmt = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  }

  insert(row: ApiKeyRow): void {
    this.insertStmt.run({ ...row, scopes: JSON.stringify(row.scopes) });
  }

  findById(id: string): ApiKeyRow | undefined {
    return parse(this.byId.get(id));
  }

  list(): ApiKeyRow[] {
    return this.all.all().map((r) => parse(r)!);
  }

  /** Marks the key revoked; false when it does not exist or already was. */
  revoke(id: string, at: string): boolean {
    return this.revokeStmt.run(at, id).changes === 1;
  }
}

function parse(row: StoredKeyRow | undefined): ApiKeyRow | undefined {
  return row && parseKeyRow(row);
}

/** The key row of a stored row. */
export function parseKeyRow(row: StoredKeyRow): ApiKeyRow {
  return { ...row, scopes: JSON.parse(row.scopes) as Scope[] };
}
