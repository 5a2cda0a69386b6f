/** One field a problem+json answer names: `param` is the field's path (`title`, `settings.waiting_room`). */
export interface FieldProblem {
  param: string;
  message: string;
}

/** A problem+json answer of the dashboard API. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    /** The fields the answer names (`errors`, or its single `param`). */
    readonly fields: FieldProblem[] = [],
  ) {
    super(detail);
  }
}

/** The service could not be reached: fetch failed before any answer (offline, DNS, refused, reset), or a proxy in front answered 502-504. */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super('Cannot reach the service', { cause });
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

/** Sets the CSRF token sent with every state-changing request. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when the API says the session is gone (401). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** Calls the dashboard API (`/dashboard/api` + `path`) with the session cookie and, for changes, the CSRF token. */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((err: unknown) => {
    // Browsers word it each their own way ("Failed to fetch", "NetworkError when attempting to fetch resource.").
    throw new NetworkError(err);
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  // A reverse proxy's own error page (no problem+json): the service behind it is not answering.
  if (data === null && [502, 503, 504].includes(res.status)) throw new NetworkError(new Error(`${res.status} ${res.statusText}`));
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/sign-in')) onSignedOut();
    const detail = String(data?.detail ?? data?.title ?? res.statusText);
    const fields = Array.isArray(data?.errors)
      ? (data.errors as FieldProblem[])
      : typeof data?.param === 'string'
        ? [{ param: data.param, message: detail }]
        : [];
    throw new ApiError(res.status, String(data?.code ?? 'error'), detail, fields);
  }
  return data as T;
}

/** A page of a list answer. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Every item of a list endpoint (`path` without a query), following `next_cursor` page by page (100 a page, the
 * most the API gives), newest first as the API lists them; stops after `maxPages` pages whatever the server says.
 */
export async function listAll<T>(path: string, maxPages = 100): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < maxPages; pages++) {
    const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const page: Page<T> = await api<Page<T>>('GET', `${path}?${query}`);
    items.push(...page.data);
    if (!page.has_more || !page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return items;
}

/** A teammate's role: owners and admins manage the service, members see and host their organization's meetings. */
export type Role = 'owner' | 'admin' | 'member';

/** The signed-in session. */
export interface Session {
  user: { id: string; name: string; email: string; role: Role };
  /** Whether the role manages keys, webhooks, integrations, the project database and the team (owners and admins). */
  can_manage: boolean;
  organizations: { id: string; name: string }[];
  csrf_token: string;
  expires_at: string;
  base_url: string;
  scopes: string[];
  event_types: string[];
  /** Whether the operator configured a Slack app, so "Add to Slack" (OAuth) is offered beside the pasted token. */
  slack_install_available: boolean;
}
