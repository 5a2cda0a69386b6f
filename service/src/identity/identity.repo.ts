import type { Db } from '../db/connection';
import { parseKeyRow, type ApiKeyRow, type StoredKeyRow } from '../keys/keys.repo';

/** A person who owns keys and belongs to organizations. */
export interface UserRow {
  id: string;
  name: string;
  email: string;
  created_at: string;
}

/** A tenant: meetings, webinars and their data belong to exactly one organization. */
export interface OrganizationRow {
  id: string;
  name: string;
  created_at: string;
}

/** SQL access to users, organizations and memberships. */
export class IdentityRepo {
  private readonly keyHolder;
  private readonly firstUser;
  private readonly orgById;
  private readonly allOrgs;
  private readonly insertUserStmt;
  private readonly insertOrgStmt;
  private readonly insertMembershipStmt;
  private readonly userById;
  private readonly userByEmail;
  private readonly orgsOfUser;
  private readonly touchKeyStmt;
  private readonly allUsers;

  constructor(db: Db) {
    // Authentication is one query per request: the key, its user and the user's organizations.
    this.keyHolder = db.prepare<[string], StoredKeyRow & { user: string; organizations: string }>(`SELECT k.*,
      json_object('id', u.id, 'name', u.name, 'email', u.email, 'created_at', u.created_at) AS user,
      (SELECT json_group_array(json_object('id', o.id, 'name', o.name, 'created_at', o.created_at))
         FROM (SELECT o.* FROM organizations o JOIN memberships m ON m.organization_id = o.id
               WHERE m.user_id = u.id ORDER BY m.created_at, o.id) o) AS organizations
      FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.lookup = ?`);
    this.firstUser = db.prepare<[], UserRow>('SELECT * FROM users ORDER BY id LIMIT 1');
    this.orgById = db.prepare<[string], OrganizationRow>('SELECT * FROM organizations WHERE id = ?');
    this.allOrgs = db.prepare<[], OrganizationRow>('SELECT * FROM organizations ORDER BY id');
    this.insertUserStmt = db.prepare('INSERT INTO users (id, name, email, created_at) VALUES (@id, @name, @email, @created_at)');
    this.insertOrgStmt = db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (@id, @name, @created_at)');
    this.insertMembershipStmt = db.prepare('INSERT INTO memberships (user_id, organization_id, role, created_at) VALUES (?, ?, ?, ?)');
    this.userById = db.prepare<[string], UserRow>('SELECT id, name, email, created_at FROM users WHERE id = ?');
    this.userByEmail = db.prepare<[string], UserRow>('SELECT id, name, email, created_at FROM users WHERE email = ? COLLATE NOCASE');
    this.orgsOfUser = db.prepare<[string], OrganizationRow>(`SELECT o.* FROM organizations o
      JOIN memberships m ON m.organization_id = o.id WHERE m.user_id = ? ORDER BY m.created_at, o.id`);
    this.allUsers = db.prepare<[], UserRow>('SELECT id, name, email, created_at FROM users ORDER BY id');
    this.touchKeyStmt = db.prepare<[string, string, string]>(
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
    );
  }

  listUsers(): UserRow[] {
    return this.allUsers.all();
  }

  findUser(id: string): UserRow | undefined {
    return this.userById.get(id);
  }

  findUserByEmail(email: string): UserRow | undefined {
    return this.userByEmail.get(email);
  }

  /** The user's organizations, oldest membership first. */
  organizationsOf(userId: string): OrganizationRow[] {
    return this.orgsOfUser.all(userId);
  }

  /** Records that the key was used at `at`, unless it already was at or after `since`. */
  touchKey(id: string, at: string, since: string): void {
    this.touchKeyStmt.run(at, id, since);
  }

  /** The key with this lookup part, with its user and the user's organizations (oldest membership first). */
  findKeyHolder(lookup: string): { key: ApiKeyRow; user: UserRow; organizations: OrganizationRow[] } | undefined {
    const row = this.keyHolder.get(lookup);
    if (!row) return undefined;
    const { user, organizations, ...key } = row;
    return { key: parseKeyRow(key), user: JSON.parse(user) as UserRow, organizations: JSON.parse(organizations) as OrganizationRow[] };
  }

  /** The first user ever created: the owner the bootstrap made. */
  findOwner(): UserRow | undefined {
    return this.firstUser.get();
  }

  findOrganization(id: string): OrganizationRow | undefined {
    return this.orgById.get(id);
  }

  listOrganizations(): OrganizationRow[] {
    return this.allOrgs.all();
  }

  insertUser(row: UserRow): void {
    this.insertUserStmt.run(row);
  }

  insertOrganization(row: OrganizationRow): void {
    this.insertOrgStmt.run(row);
  }

  addMember(userId: string, organizationId: string, role: 'owner' | 'member', at: string): void {
    this.insertMembershipStmt.run(userId, organizationId, role, at);
  }
}
