import type { Db } from '../db/connection';
import type { Role } from '../identity/roles';

/** An invitation to the team as stored: a hash of its token, never the token. */
export interface InviteRow {
  id: string;
  token_hash: Buffer;
  email: string;
  role: Role;
  organization_id: string;
  invited_by: string;
  created_at: string;
  /** Epoch ms after which the link is refused. */
  expires_at: number;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

/** SQL access to team invitations. */
export class InvitesRepo {
  private readonly insertStmt;
  private readonly byId;
  private readonly pendingStmt;
  private readonly acceptStmt;
  private readonly revokeStmt;
  private readonly revokeForEmailStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO team_invites
      (id, token_hash, email, role, organization_id, invited_by, created_at, expires_at, accepted_at, accepted_by, revoked_at)
      VALUES (@id, @token_hash, @email, @role, @organization_id, @invited_by, @created_at, @expires_at, @accepted_at, @accepted_by, @revoked_at)`);
    this.byId = db.prepare<[string], InviteRow>('SELECT * FROM team_invites WHERE id = ?');
    this.pendingStmt = db.prepare<[number], InviteRow>(
      'SELECT * FROM team_invites WHERE accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ? ORDER BY id DESC',
    );
    this.acceptStmt = db.prepare<[string, string, string, number]>(
      `UPDATE team_invites SET accepted_at = ?, accepted_by = ?
       WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?`,
    );
    this.revokeStmt = db.prepare<[string, string]>(
      'UPDATE team_invites SET revoked_at = ? WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL',
    );
    this.revokeForEmailStmt = db.prepare<[string, string]>(
      'UPDATE team_invites SET revoked_at = ? WHERE email = ? COLLATE NOCASE AND accepted_at IS NULL AND revoked_at IS NULL',
    );
  }

  insert(row: InviteRow): void {
    this.insertStmt.run(row);
  }

  findById(id: string): InviteRow | undefined {
    return this.byId.get(id);
  }

  /** Invitations neither accepted, revoked nor expired at `now`, newest first. */
  listPending(now: number): InviteRow[] {
    return this.pendingStmt.all(now);
  }

  /** Marks the invitation accepted by `userId`; false when it was already used, revoked or expired at `now`. */
  accept(id: string, userId: string, at: string, now: number): boolean {
    return this.acceptStmt.run(at, userId, id, now).changes === 1;
  }

  /** Revokes a pending invitation; false when there is none with this id. */
  revoke(id: string, at: string): boolean {
    return this.revokeStmt.run(at, id).changes === 1;
  }

  /** Revokes every pending invitation for `email`. */
  revokeForEmail(email: string, at: string): void {
    this.revokeForEmailStmt.run(at, email);
  }
}
