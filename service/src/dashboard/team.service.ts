import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IdentityRepo, OrganizationRow, UserRow } from '../identity/identity.repo';
import { canManage, type Role } from '../identity/roles';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import type { Transaction } from '../shared/transaction';
import type { DashboardRepo } from './dashboard.repo';
import type { InviteRow, InvitesRepo } from './invites.repo';
import { hashPassword, PASSWORD_LENGTH } from './passwords';
import type { SignInAttempts } from './sign-in-attempts';

/** How long an invitation link is valid. */
export const INVITE_TTL_MS = 7 * 24 * 3600_000;

/** A teammate as the dashboard and the CLI show them. */
export interface MemberView {
  id: string;
  name: string;
  email: string;
  role: Role;
  organizations: { id: string; name: string }[];
  created_at: string;
}

/** A pending invitation (its token is never shown again). */
export interface InviteView {
  id: string;
  email: string;
  role: Role;
  organization: { id: string; name: string };
  invited_by: string;
  created_at: string;
  expires_at: string;
}

/** What the accept page shows before the invitee chooses a name and password. */
export interface InvitePreview {
  email: string;
  role: Role;
  organization: { id: string; name: string };
  expires_at: string;
}

/** Who changes the team: a signed-in user, or the server's operator at the command line (`null`), who may do anything an owner may. */
export type TeamActor = UserRow | null;

/** Team settings. */
export interface TeamSettings {
  baseUrl: string;
}

const TOKEN_PREFIX = 'svc_inv_';
const REFUSED = 'This invitation link is invalid, expired, revoked or already used; ask whoever invited you for a new one';

/** What TeamService works with. */
export interface TeamServiceDeps {
  users: IdentityRepo;
  invites: InvitesRepo;
  dashboard: DashboardRepo;
  attempts: SignInAttempts;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  settings: TeamSettings;
}

/** Teammates: invitations by one-time link, roles, and removal (which ends the user's sessions and keys). */
export class TeamService {
  private readonly users: IdentityRepo;
  private readonly invites: InvitesRepo;
  private readonly dashboard: DashboardRepo;
  private readonly attempts: SignInAttempts;
  private readonly transaction: Transaction;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;
  private readonly settings: TeamSettings;

  constructor(deps: TeamServiceDeps) {
    this.users = deps.users;
    this.invites = deps.invites;
    this.dashboard = deps.dashboard;
    this.attempts = deps.attempts;
    this.transaction = deps.transaction;
    this.ids = deps.ids;
    this.clock = deps.clock;
    this.settings = deps.settings;
  }

  /** The team: every user not removed, oldest first, with their organizations. */
  listMembers(): MemberView[] {
    const orgs = new Map(this.users.listOrganizations().map((o) => [o.id, o]));
    const memberships = this.users.listMemberships();
    return this.users.listUsers().map((u) => ({
      id: u.id,
      name: u.name,
      email: u.email,
      role: u.role,
      organizations: memberships
        .filter((m) => m.user_id === u.id)
        .map((m) => orgs.get(m.organization_id)!)
        .map((o) => ({ id: o.id, name: o.name })),
      created_at: u.created_at,
    }));
  }

  /** Invitations not yet accepted, revoked or expired, newest first. */
  listInvites(): InviteView[] {
    return this.invites.listPending(this.clock.now()).map((row) => this.inviteView(row));
  }

  /**
   * Invites `email` with `role` into an organization (the actor's first by default); the answer carries the one-time link,
   * valid 7 days, which is never shown again. A new invitation for the same email replaces the pending one.
   */
  invite(actor: TeamActor, input: { email: string; role: Role; organizationId?: string }): InviteView & { url: string } {
    this.assertMayGrant(actor, input.role, 'role');
    const email = input.email.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320)
      throw AppError.invalid([{ param: 'email', message: 'must be an email address' }]);
    if (this.users.findUserByEmail(email)) throw AppError.conflict(`${email} is already on the team`, { param: 'email' });
    const org = this.organizationFor(actor, input.organizationId);
    const now = this.clock.now();
    const id = this.ids.next('inv');
    const token = `${TOKEN_PREFIX}${id}.${randomBytes(32).toString('base64url')}`;
    const row: InviteRow = {
      id,
      token_hash: sha256(token),
      email,
      role: input.role,
      organization_id: org.id,
      invited_by: (actor ?? this.oldestOwner()).id,
      created_at: isoAt(now),
      expires_at: now + INVITE_TTL_MS,
      accepted_at: null,
      accepted_by: null,
      revoked_at: null,
    };
    this.transaction(() => {
      this.invites.revokeForEmail(email, isoAt(now));
      this.invites.insert(row);
    });
    return { ...this.inviteView(row), url: `${this.settings.baseUrl}/invite#token=${token}` };
  }

  /** Revokes a pending invitation: its link stops working at once. */
  revokeInvite(actor: TeamActor, id: string): void {
    const row = this.invites.findById(id);
    if (!row || row.accepted_at !== null || row.revoked_at !== null) throw AppError.notFound(`Pending invitation ${id}`);
    this.assertMayGrant(actor, row.role, 'id');
    this.invites.revoke(id, isoAt(this.clock.now()));
  }

  /** Who an invitation link is for, so the accept page can say it; refused like a failed sign-in when the link is not valid. */
  preview(token: string, client: string): InvitePreview {
    const row = this.validInvite(token, client);
    const view = this.inviteView(row);
    return { email: view.email, role: view.role, organization: view.organization, expires_at: view.expires_at };
  }

  /**
   * Accepts an invitation: the invitee becomes a user with the invitation's role in its organization, with `name` and
   * `password` (for email + password sign-in). The link works once. Returns the user, for the caller to sign in.
   */
  accept(token: string, input: { name: string; password: string }, client: string): UserRow {
    const row = this.validInvite(token, client);
    const name = input.name.trim();
    if (!name) throw AppError.invalid([{ param: 'name', message: 'must not be empty' }]);
    if (input.password.length < PASSWORD_LENGTH.min || input.password.length > PASSWORD_LENGTH.max) {
      throw AppError.invalid([{ param: 'password', message: `must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters long` }]);
    }
    const passwordHash = hashPassword(input.password);
    const now = this.clock.now();
    const at = isoAt(now);
    return this.transaction(() => {
      if (this.users.findUserByEmail(row.email)) throw AppError.conflict(`${row.email} is already on the team; sign in instead`);
      const removed = this.users.findRemovedUserByEmail(row.email);
      const userId = removed?.id ?? this.ids.next('usr');
      if (removed) this.users.restore(removed.id, name, row.role, passwordHash);
      else this.users.insertUser({ id: userId, name, email: row.email, role: row.role, created_at: at });
      this.dashboard.setPasswordHash(userId, passwordHash);
      if (!this.invites.accept(row.id, userId, at, now)) throw new AppError('unauthorized', REFUSED);
      this.users.addMember(userId, row.organization_id, 'member', at);
      return this.users.findUser(userId)!;
    });
  }

  /** Changes a teammate's role; only owners make or unmake owners, and the last owner stays one. */
  changeRole(actor: TeamActor, userId: string, role: Role): MemberView {
    const user = this.users.findUser(userId);
    if (!user) throw AppError.notFound(`User ${userId}`);
    this.assertMayGrant(actor, user.role, 'id');
    this.assertMayGrant(actor, role, 'role');
    this.transaction(() => {
      if (user.role === 'owner' && role !== 'owner' && this.users.countOwners() <= 1) {
        throw AppError.conflict(`${user.email} is the last owner; make someone else an owner first`);
      }
      this.users.setRole(user.id, role);
    });
    return this.listMembers().find((m) => m.id === user.id)!;
  }

  /** Removes a teammate: their sessions end, their API keys are revoked and they leave every organization. */
  remove(actor: TeamActor, userId: string): void {
    const user = this.users.findUser(userId);
    if (!user) throw AppError.notFound(`User ${userId}`);
    this.assertMayGrant(actor, user.role, 'id');
    const at = isoAt(this.clock.now());
    this.transaction(() => {
      if (user.role === 'owner' && this.users.countOwners() <= 1) {
        throw AppError.conflict(`${user.email} is the last owner; make someone else an owner first`);
      }
      this.users.markRemoved(user.id, at);
      this.dashboard.revokeSessionsOf(user.id, at);
    });
  }

  /** The user with this email (for the CLI, which names people by email). */
  findByEmail(email: string): UserRow {
    const user = this.users.findUserByEmail(email);
    if (!user) throw AppError.notFound(`User ${email}`);
    return user;
  }

  private validInvite(token: string, client: string): InviteRow {
    const subjects = [`address:${client}`];
    this.attempts.check(subjects);
    const match = /^svc_inv_(inv_[0-9a-z]{26})\.[A-Za-z0-9_-]{43}$/.exec(token);
    const row = match ? this.invites.findById(match[1]!) : undefined;
    const ok =
      row !== undefined &&
      timingSafeEqual(row.token_hash, sha256(token)) &&
      row.accepted_at === null &&
      row.revoked_at === null &&
      row.expires_at > this.clock.now();
    if (!ok) {
      this.attempts.fail(subjects);
      throw new AppError('unauthorized', REFUSED);
    }
    return row;
  }

  // Managing the team is for owners and admins; granting, changing or removing an owner is for owners alone.
  private assertMayGrant(actor: TeamActor, role: Role, param: string): void {
    if (actor === null) return;
    if (!canManage(actor.role)) throw new AppError('forbidden', 'Only owners and admins manage the team');
    if (role === 'owner' && actor.role !== 'owner') {
      throw new AppError('forbidden', 'Only an owner grants, changes or removes the owner role', { param });
    }
  }

  private organizationFor(actor: TeamActor, requested: string | undefined): OrganizationRow {
    const reachable = actor === null ? this.users.listOrganizations() : this.users.organizationsOf(actor.id);
    const org = requested === undefined ? reachable[0] : reachable.find((o) => o.id === requested);
    if (!org) throw AppError.invalid([{ param: 'organization_id', message: 'is not an organization you can invite into' }]);
    return org;
  }

  private oldestOwner(): UserRow {
    const owner = this.users.findOwner();
    if (!owner) throw AppError.conflict('The service has no owner yet');
    return owner;
  }

  private inviteView(row: InviteRow): InviteView {
    const org = this.users.findOrganization(row.organization_id)!;
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      organization: { id: org.id, name: org.name },
      invited_by: this.users.findUser(row.invited_by)?.email ?? row.invited_by,
      created_at: row.created_at,
      expires_at: isoAt(row.expires_at),
    };
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
