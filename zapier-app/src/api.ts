import type { Bundle } from 'zapier-platform-core';

/** The six svc event types, each behind one trigger. */
export type EventType =
  'meeting.started' | 'meeting.ended' | 'recording.ready' | 'transcript.ready' | 'summary.ready' | 'registration.created';

/** The event envelope svc delivers by webhook and lists in the polling feed (a type alias, so it fits Zapier's record-typed samples). */
export type SvcEvent = {
  id: string;
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
};

/** A meeting or webinar as the REST API returns it. */
export interface Meeting {
  id: string;
  code: string;
  title: string;
  kind: 'meeting' | 'webinar';
  slug: string | null;
  status: 'scheduled' | 'live' | 'ended' | 'cancelled';
  join_url: string;
}

/** One page of a list endpoint. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Answer of GET /me (a type alias, so it fits the record-typed `bundle.inputData` of the connection label). */
export type Me = {
  user: { id: string; name: string; email: string };
  organizations: { id: string; name: string }[];
  key: { id: string; name: string; scopes: string[]; organization_id: string | null; expires_at: string | null };
};

/** What performSubscribe keeps for the hook's lifetime: the endpoint id and the secret that signs its deliveries. */
export interface Subscription {
  id: string;
  secret: string;
}

/** The public API's root for the connection's base URL, which may be given with a trailing slash or with the API path itself. */
export function apiRoot(bundle: Bundle): string {
  const base = String(bundle.authData.base_url ?? '')
    .trim()
    .replace(/\/+$/, '')
    .replace(/\/api\/v1\/public$/, '');
  return `${base}/api/v1/public`;
}

/** The absolute URL of an API path such as `/meetings`. */
export function apiUrl(bundle: Bundle, path: string): string {
  return apiRoot(bundle) + path;
}
