import { randomUUID } from 'node:crypto';

/** A signed-in owner of a running n8n, calling the internal REST API the editor uses. */
export interface N8nSession {
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Sets up the owner account of a fresh n8n (as its first-run screen does) and returns that owner's session. */
export async function ownerSession(baseUrl: string): Promise<N8nSession> {
  // n8n binds its auth cookie to the browser-id header it was issued with.
  const browserId = randomUUID();
  const setup = await fetch(`${baseUrl}/rest/owner/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'browser-id': browserId },
    body: JSON.stringify({ email: 'owner@example.com', firstName: 'Test', lastName: 'Owner', password: `Owner-${randomUUID()}` }),
  });
  const cookie = setup.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  if (setup.status !== 200 || !cookie.includes('n8n-auth='))
    throw new Error(`n8n owner setup failed: ${setup.status} ${await setup.text()}`);
  return {
    async request(method, path, body) {
      const res = await fetch(baseUrl + path, {
        method,
        headers: { cookie, 'browser-id': browserId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
  };
}
