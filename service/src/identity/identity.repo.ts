import type { Db } from '../db/connection';

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
  private readonly userById;
  private readonly firstUser;
  private readonly orgsOfUser;
  private readonly orgById;
  private readonly allOrgs;
  private readonly insertUserStmt;
  private readonly insertOrgStmt;
  private readonly insertMembershipStmt;

  constructor(db: Db) {
    this.userById = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?');
    this.firstUser = db.prepare<[], UserRow>('SELECT * FROM users ORDER BY id LIMIT 1');
    this.orgsOfUser = db.prepare<[string], OrganizationRow>(`SELECT o.* FROM organizations o
      JOIN memberships m ON m.organization_id = o.id WHERE m.user_id = ? ORDER BY m.created_at, o.id`);
    this.orgById = db.prepare<[string], OrganizationRow>('SELECT * FROM organizations WHERE id = ?');
    this.allOrgs = db.prepare<[], OrganizationRow>('SELECT * FROM organizations ORDER BY id');
    this.insertUserStmt = db.prepare('INSERT INTO users (id, name, email, created_at) VALUES (@id, @name, @email, @created_at)');
    this.insertOrgStmt = db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (@id, @name, @created_at)');
    this.insertMembershipStmt = db.prepare(
      'INSERT INTO memberships (user_id, organization_id, role, created_at) VALUES (?, ?, ?, ?)',
    );
  }

  findUser(id: string): UserRow | undefined {
    return this.userById.get(id);
  }

  /** The first user ever created: the owner the bootstrap made. */
  findOwner(): UserRow | undefined {
    return this.firstUser.get();
  }

  organizationsOf(userId: string): OrganizationRow[] {
    return this.orgsOfUser.all(userId);
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
