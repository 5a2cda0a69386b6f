import { SCOPES, type Scope } from '../keys/scopes';

/** A user's role across the service, strongest first. */
export const ROLES = ['owner', 'admin', 'member'] as const;

/** What a user may do: owners and admins run the service; members see and host their organizations' meetings. */
export type Role = (typeof ROLES)[number];

/** True when `value` names a role. */
export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** The scopes only owners and admins use: they manage where data leaves the service. */
const MANAGING_SCOPES: readonly Scope[] = ['webhooks:write', 'integrations:write'];

/** The scopes a role allows; a key or session of the user never gets more, whatever it was created with. */
export function scopesOfRole(role: Role): Scope[] {
  return canManage(role) ? [...SCOPES] : SCOPES.filter((s) => !MANAGING_SCOPES.includes(s));
}

/** True for the roles that manage keys, webhooks, integrations, the project database and teammates. */
export function canManage(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}
