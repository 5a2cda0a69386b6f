import { AppError } from '../shared/errors';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { ApiKeyRow } from '../keys/keys.repo';
import { isLiveKey, lookupOf } from '../keys/keys.service';
import type { IdentityRepo, OrganizationRow, UserRow } from './identity.repo';
import { scopesOfRole } from './roles';

/** How precisely a key's last use is kept: a busy key writes at most once per this span. */
const KEY_USE_RESOLUTION_MS = 60_000;

/** Who is calling: the key's owner and the organizations the key may act in. */
export interface Principal {
  key: ApiKeyRow;
  user: UserRow;
  organizations: OrganizationRow[];
  /** The organizations' ids, as repos take them. */
  organizationIds: string[];
}

/** Users, organizations and what a key may reach. */
export class IdentityService {
  constructor(
    private readonly repo: IdentityRepo,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** Creates the owner and a first organization when the database has no owner yet; returns the (oldest) owner and whether it was created now. */
  ensureOwner(): { owner: UserRow; created: boolean } {
    const existing = this.repo.findOwner();
    if (existing) return { owner: existing, created: false };
    const at = isoAt(this.clock.now());
    const owner: UserRow = { id: this.ids.next('usr'), name: 'Owner', email: 'owner@localhost', role: 'owner', created_at: at };
    this.repo.insertUser(owner);
    this.createOrganization(owner.id, 'My organization');
    return { owner, created: true };
  }

  /** Creates an organization with `userId` as its first member. */
  createOrganization(userId: string, name: string): OrganizationRow {
    const org: OrganizationRow = { id: this.ids.next('org'), name, created_at: isoAt(this.clock.now()) };
    this.repo.insertOrganization(org);
    this.repo.addMember(userId, org.id, 'owner', org.created_at);
    return org;
  }

  listOrganizations(): OrganizationRow[] {
    return this.repo.listOrganizations();
  }

  /** The principal of a presented API key, or undefined for a malformed, unknown, expired or revoked one. */
  authenticate(presented: string): Principal | undefined {
    const lookup = lookupOf(presented);
    const holder = lookup === undefined ? undefined : this.repo.findKeyHolder(lookup);
    const now = this.clock.now();
    if (!holder || !isLiveKey(holder.key, presented, now)) return undefined;
    this.repo.touchKey(holder.key.id, isoAt(now), isoAt(now - KEY_USE_RESOLUTION_MS));
    return principal(holder.key, holder.user, holder.organizations);
  }

  listUsers(): UserRow[] {
    return this.repo.listUsers();
  }

  findUser(id: string): UserRow | undefined {
    return this.repo.findUser(id);
  }

  findUserByEmail(email: string): UserRow | undefined {
    return this.repo.findUserByEmail(email);
  }

  /**
   * The principal of a signed-in dashboard user: every scope their role allows in every organization the user belongs to, carried by a
   * key row that exists only in memory (`id` names the session), so the dashboard calls the services as the API does.
   */
  sessionPrincipal(user: UserRow, sessionId: string, createdAt: string): Principal {
    const key: ApiKeyRow = {
      id: sessionId,
      user_id: user.id,
      organization_id: null,
      name: 'Dashboard session',
      lookup: '',
      secret_hash: Buffer.alloc(0),
      scopes: scopesOfRole(user.role),
      rate_limit_per_second: null,
      rate_limit_per_minute: null,
      expires_at: null,
      revoked_at: null,
      created_at: createdAt,
      last_used_at: null,
    };
    return principal(key, user, this.repo.organizationsOf(user.id));
  }

  /** The organization new records go to: the requested one if the key reaches it, else the key's first. */
  targetOrganization(principal: Principal, requested?: string): OrganizationRow {
    if (requested !== undefined) {
      const org = principal.organizations.find((o) => o.id === requested);
      if (!org) throw AppError.invalid([{ param: 'organization_id', message: 'is not an organization this key can act in' }]);
      return org;
    }
    const first = principal.organizations[0];
    if (!first) throw AppError.conflict('This key can act in no organization');
    return first;
  }
}

// A key never does more than its user's role allows now: a key made by an admin later made a member loses the admin's scopes.
function principal(key: ApiKeyRow, user: UserRow, memberOf: OrganizationRow[]): Principal {
  const organizations = key.organization_id === null ? memberOf : memberOf.filter((o) => o.id === key.organization_id);
  const allowed = scopesOfRole(user.role);
  const scoped = { ...key, scopes: key.scopes.filter((s) => allowed.includes(s)) };
  return { key: scoped, user, organizations, organizationIds: organizations.map((o) => o.id) };
}
