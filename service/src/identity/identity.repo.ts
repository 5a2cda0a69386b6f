import type { Db } from '../db/connection';
import { parseKeyRow, type ApiKeyRow, type StoredKeyRow } from '../keys/keys.repo';
import type { Role } from './roles';

/** A person who owns keys and belongs to organizations. */
export interface UserRow {
  id: string;
  name: string;
  email: string;
  role: Role;
  created_at: string;
}

const USER_COLUMNS = 'id, name, email, role, created_at';
const ACTIVE = 'removed_at IS NULL';

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
  private readonly removedByEmail;
  private readonly ownerCount;
  private readonly setRoleStmt;
  private readonly removeStmt;
  private readonly dropMemberships;
  private readonly revokeKeysStmt;
  private readonly restoreStmt;
  private readonly membershipsOf;

  constructor(db: Db) {
    // Authentication is one query per request: the key, its user and the user's organizations.
    this.keyHolder = db.prepare<[string], StoredKeyRow & { user: string; organizations: string }>(`SELECT k.*,
      json_object('id', u.id, 'name', u.name, 'email', u.email, 'role', u.role, 'created_at', u.created_at) AS user,
      (SELECT json_group_array(json_object('id', o.id, 'name', o.name, 'created_at', o.created_at))
         FROM (SELECT o.* FROM organizations o JOIN memberships m ON m.organization_id = o.id
               WHERE m.user_id = u.id ORDER BY m.created_at, o.id) o) AS organizations
      FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.lookup = ? AND u.removed_at IS NULL`);
    this.firstUser = db.prepare<[], UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE ${ACTIVE} AND role = 'owner' ORDER BY id LIMIT 1`);
    this.orgById = db.prepare<[string], OrganizationRow>('SELECT * FROM organizations WHERE id = ?');
    this.allOrgs = db.prepare<[], OrganizationRow>('SELECT * FROM organizations ORDER BY id');
    this.insertUserStmt = db.prepare(
      'INSERT INTO users (id, name, email, role, created_at) VALUES (@id, @name, @email, @role, @created_at)',
    );
    this.insertOrgStmt = db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (@id, @name, @created_at)');
    this.insertMembershipStmt = db.prepare(
      'INSERT INTO memberships (user_id, organization_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.userById = db.prepare<[string], UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ? AND ${ACTIVE}`);
    this.userByEmail = db.prepare<[string], UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE email = ? COLLATE NOCASE AND ${ACTIVE}`);
    this.removedByEmail = db.prepare<[string], UserRow>(
      `SELECT ${USER_COLUMNS} FROM users WHERE email = ? COLLATE NOCASE AND removed_at IS NOT NULL`,
    );
    this.orgsOfUser = db.prepare<[string], OrganizationRow>(`SELECT o.* FROM organizations o
      JOIN memberships m ON m.organization_id = o.id WHERE m.user_id = ? ORDER BY m.created_at, o.id`);
    this.allUsers = db.prepare<[], UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE ${ACTIVE} ORDER BY id`);
    this.ownerCount = db.prepare<[], number>(`SELECT COUNT(*) FROM users WHERE ${ACTIVE} AND role = 'owner'`).pluck();
    this.setRoleStmt = db.prepare<[string, string]>(`UPDATE users SET role = ? WHERE id = ? AND ${ACTIVE}`);
    this.removeStmt = db.prepare<[string, string]>(`UPDATE users SET removed_at = ?, password_hash = NULL WHERE id = ? AND ${ACTIVE}`);
    this.dropMemberships = db.prepare<[string]>('DELETE FROM memberships WHERE user_id = ?');
    this.revokeKeysStmt = db.prepare<[string, string]>('UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL');
    this.restoreStmt = db.prepare<[string, string, string, string]>(
      'UPDATE users SET removed_at = NULL, name = ?, role = ?, password_hash = ? WHERE id = ? AND removed_at IS NOT NULL',
    );
    this.membershipsOf = db.prepare<[], { user_id: string; organization_id: string }>(
      'SELECT user_id, organization_id FROM memberships ORDER BY created_at, organization_id',
    );
    this.touchKeyStmt = db.prepare<[string, string, string]>(
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
    );
  }

  /** The users who have not been removed, oldest first. */
  listUsers(): UserRow[] {
    return this.allUsers.all();
  }

  /** Every membership, oldest first. */
  listMemberships(): { user_id: string; organization_id: string }[] {
    return this.membershipsOf.all();
  }

  /** A removed user with this email, whom an accepted invitation brings back. */
  findRemovedUserByEmail(email: string): UserRow | undefined {
    return this.removedByEmail.get(email);
  }

  /** How many users (not removed) are owners. */
  countOwners(): number {
    return this.ownerCount.get() as number;
  }

  setRole(userId: string, role: Role): void {
    this.setRoleStmt.run(role, userId);
  }

  /** Marks the user removed, forgets their password, revokes their API keys and takes them out of every organization. */
  markRemoved(userId: string, at: string): void {
    this.removeStmt.run(at, userId);
    this.revokeKeysStmt.run(at, userId);
    this.dropMemberships.run(userId);
  }

  /** Brings a removed user back with a new name, role and password hash. */
  restore(userId: string, name: string, role: Role, passwordHash: string): void {
    this.restoreStmt.run(name, role, passwordHash, userId);
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

  /** The oldest owner still on the team (the owner the bootstrap made, while they are). */
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

  /** Adds the user to the organization (nothing when they already are in it); `creator` says who created it, and grants nothing. */
  addMember(userId: string, organizationId: string, creator: 'owner' | 'member', at: string): void {
    this.insertMembershipStmt.run(userId, organizationId, creator, at);
  }
}
