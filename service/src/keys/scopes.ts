/** Every scope an API key can carry. */
export const SCOPES = [
  'meetings:read',
  'meetings:write',
  'recordings:read',
  'transcripts:read',
  'webinars:write',
  'webhooks:write',
  'integrations:write',
] as const;

/** One permission an API key can carry. */
export type Scope = (typeof SCOPES)[number];

/** True when `value` names a scope. */
export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
