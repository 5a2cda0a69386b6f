import type { TestResponse, TestServer } from './harness';

/** A browser-like client of the dashboard API: keeps the session cookie, sends Origin and, once known, the CSRF token; answers redirects as they are. */
export function dashboardClient(t: TestServer) {
  let cookie: string | undefined;
  let csrf: string | undefined;
  const c = {
    origin: t.url,
    async call(method: string, pathAndQuery: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
      const all: Record<string, string> = { origin: c.origin, ...headers };
      if (cookie) all.cookie = cookie;
      if (csrf && !('x-csrf-token' in headers)) all['x-csrf-token'] = csrf;
      const res = await t.request(method, `/dashboard/api${pathAndQuery}`, { body, headers: all, followRedirects: false });
      const set = res.headers.get('set-cookie');
      const value = set ? /svc_session=([^;]*)/.exec(set)?.[1] : undefined;
      if (set) cookie = value ? `svc_session=${value}` : undefined;
      return res;
    },
    async signIn(token: string): Promise<TestResponse> {
      const res = await c.call('POST', '/sign-in/link', { token });
      if (res.status === 204) csrf = (await c.call('GET', '/session')).body.csrf_token;
      return res;
    },
    /** Accepts a team invitation (the token from its link), which signs in as the new user. */
    async acceptInvite(token: string, name: string, password: string): Promise<TestResponse> {
      const res = await c.call('POST', '/invites/accept', { token, name, password });
      if (res.status === 204) csrf = (await c.call('GET', '/session')).body.csrf_token;
      return res;
    },
    /** Signs in with a fresh one-time link of the owner. */
    async signInAsOwner(): Promise<TestResponse> {
      return c.signIn(new URL(t.services.dashboard.signInLink().url).hash.replace('#token=', ''));
    },
    cookie: () => cookie,
  };
  return c;
}
