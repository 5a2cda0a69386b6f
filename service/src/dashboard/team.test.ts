import type { Router } from 'express';
import { dashboardApiDeps, publicRoutes } from '../app';
import { dashboardClient, startTestServer, type TestServer } from '../testing';
import type { Role } from '../identity/roles';
import { createLogger } from '../shared/logger';
import { dashboardApiRouter } from './dashboard.routes';

const silent = createLogger('silent');
import { INVITE_TTL_MS } from './team.service';

const PASSWORD = 'long enough password';
const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

type Client = ReturnType<typeof dashboardClient>;

/** Invites `email` with `role` as the server's operator and accepts through the API; the client is then signed in as them. */
async function teammate(t: TestServer, email: string, role: Role): Promise<Client> {
  const invite = t.services.team.invite(null, { email, role });
  const c = dashboardClient(t);
  const res = await c.acceptInvite(tokenOf(invite.url), email.split('@')[0]!, PASSWORD);
  if (res.status !== 204) throw new Error(`accepting failed: ${res.status} ${JSON.stringify(res.body)}`);
  return c;
}

async function owner(t: TestServer): Promise<Client> {
  const c = dashboardClient(t);
  await c.signInAsOwner();
  return c;
}

/** Every route the dashboard API router serves, as `METHOD /path`, found by walking the router and its sub-routers. */
function routesOf(router: Router, prefix = ''): string[] {
  const found: string[] = [];
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) found.push(`${method.toUpperCase()} ${prefix}${layer.route.path}`);
    } else if (layer.handle.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      found.push(...routesOf(layer.handle as unknown as Router, prefix + mount));
    }
  }
  return found;
}
interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  rawPath?: unknown;
}

// Who may call each route of the dashboard API: 'public' before sign-in, 'all' for every role, 'manage' for owners and
// admins. A route missing here fails the matrix test, so each new route gets a decision.
const EXPECTED: Record<string, 'public' | 'all' | 'manage'> = {
  'POST /sign-in/link': 'public',
  'POST /sign-in/password': 'public',
  'GET /sign-in/about': 'public',
  'POST /invites/preview': 'public',
  'POST /invites/accept': 'public',
  'GET /users': 'manage',
  'PATCH /users/:id': 'manage',
  'DELETE /users/:id': 'manage',
  'GET /invites': 'manage',
  'POST /invites': 'manage',
  'DELETE /invites/:id': 'manage',
  'GET /session': 'all',
  'POST /sign-out': 'all',
  'GET /keys': 'manage',
  'POST /keys': 'manage',
  'POST /keys/:id/revoke': 'manage',
  'POST /meetings/:id/end': 'all',
  'GET /meetings/:id/registrations': 'all',
  'POST /meetings/:id/join-as-host': 'all',
  'GET /meetings/:id/calendar.ics': 'all',
  'GET /meetings/:id/processing': 'all',
  'POST /meetings/:id/transcript/retry': 'all',
  'POST /meetings/:id/summary/retry': 'all',
  'POST /integrations/:id/test': 'manage',
  'POST /integrations/slack/install': 'manage',
  'GET /integrations/slack/callback': 'manage',
  'GET /project': 'manage',
  'POST /project/user-token': 'manage',
  'POST /project/sql': 'manage',
  'GET /project/tables': 'manage',
  'POST /project/tables/:name/enable-rls': 'manage',
  'GET /v1/me': 'all',
  'POST /v1/meetings': 'all',
  'GET /v1/meetings': 'all',
  'GET /v1/meetings/:id': 'all',
  'PATCH /v1/meetings/:id': 'all',
  'DELETE /v1/meetings/:id': 'all',
  'POST /v1/meetings/:id/reopen': 'all',
  'GET /v1/meetings/:id/chat-messages': 'all',
  'GET /v1/meetings/:id/polls': 'all',
  'GET /v1/meetings/:id/breakout-rooms': 'all',
  'POST /v1/embed/tokens': 'all',
  'POST /v1/meetings/:id/host-links': 'all',
  'GET /v1/meetings/:id/embed-origins': 'all',
  'PUT /v1/meetings/:id/embed-origins': 'all',
  'GET /v1/meetings/:id/participants': 'all',
  'GET /v1/meetings/:id/recordings': 'all',
  'GET /v1/recordings/:recording_id/download': 'all',
  'GET /v1/meetings/:id/transcript': 'all',
  'GET /v1/meetings/:id/breakout-rooms/:room_id/transcript': 'all',
  'POST /v1/meetings/:id/transcript': 'all',
  'GET /v1/meetings/:id/summary': 'all',
  'GET /v1/search': 'all',
  'POST /v1/webinars/:slug/registrations': 'all',
  'GET /v1/webinars/:slug/registrations': 'all',
  'GET /v1/events': 'all',
  'GET /v1/triggers/meeting.started': 'all',
  'GET /v1/triggers/meeting.ended': 'all',
  'GET /v1/triggers/recording.ready': 'all',
  'GET /v1/triggers/transcript.ready': 'all',
  'GET /v1/triggers/summary.ready': 'all',
  'GET /v1/triggers/registration.created': 'all',
  'POST /v1/webhook-endpoints': 'manage',
  'GET /v1/webhook-endpoints': 'manage',
  'GET /v1/webhook-endpoints/:id': 'manage',
  'PATCH /v1/webhook-endpoints/:id': 'manage',
  'DELETE /v1/webhook-endpoints/:id': 'manage',
  'POST /v1/webhook-endpoints/:id/rotate-secret': 'manage',
  'GET /v1/webhook-endpoints/:id/deliveries': 'manage',
  'POST /v1/deliveries/:id/redeliver': 'manage',
  'POST /v1/integrations': 'manage',
  'GET /v1/integrations': 'manage',
  'GET /v1/integrations/:id': 'manage',
  'PATCH /v1/integrations/:id': 'manage',
  'DELETE /v1/integrations/:id': 'manage',
  'GET /v1/integrations/:id/deliveries': 'manage',
};

describe('teammates: invitations, roles and removal', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('an owner invites by a one-time link; accepting sets a name and password and signs in with the invited role', async () => {
    const o = await owner(t);
    const created = await o.call('POST', '/invites', { email: 'Ada@Example.com', role: 'member' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'Ada@Example.com', role: 'member', organization: { id: t.org.id } });
    expect(created.body.url).toMatch(new RegExp(`^${t.config.baseUrl}/invite#token=svc_inv_`));
    const token = tokenOf(created.body.url);
    // Only a hash of the token is stored; the listing never shows the link again.
    const stored = JSON.stringify(t.services.db.prepare('SELECT * FROM team_invites').all());
    expect(stored).not.toContain(token.split('.')[1]);
    const pending = await o.call('GET', '/invites');
    expect(pending.body.data.map((i: { email: string }) => i.email)).toContain('Ada@Example.com');
    expect(JSON.stringify(pending.body)).not.toContain(token);

    const preview = await dashboardClient(t).call('POST', '/invites/preview', { token });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ email: 'Ada@Example.com', role: 'member', organization: { name: t.org.name } });

    const ada = dashboardClient(t);
    expect((await ada.acceptInvite(token, 'Ada', 'short')).status).toBe(400);
    expect((await ada.acceptInvite(token, 'Ada Lovelace', PASSWORD)).status).toBe(204);
    const session = await ada.call('GET', '/session');
    expect(session.body.user).toMatchObject({ name: 'Ada Lovelace', email: 'Ada@Example.com', role: 'member' });
    expect(session.body.can_manage).toBe(false);
    expect(session.body.organizations).toEqual([{ id: t.org.id, name: t.org.name }]);
    // The invitee now signs in with the password, and the link is spent.
    const again = await dashboardClient(t).acceptInvite(token, 'Mallory', PASSWORD);
    expect(again.status).toBe(401);
    expect(again.body.detail).toMatch(/already used/);
    expect((await dashboardClient(t).call('POST', '/sign-in/password', { email: 'ada@example.com', password: PASSWORD })).status).toBe(204);
    const users = await o.call('GET', '/users');
    expect(users.body.data.map((u: { email: string; role: string }) => `${u.email} ${u.role}`)).toEqual([
      'owner@localhost owner',
      'Ada@Example.com member',
    ]);
    expect((await o.call('POST', '/invites', { email: 'ada@example.com', role: 'admin' })).status).toBe(409);
  });

  it('refuses an expired, revoked, replaced or forged link, and changes nothing', async () => {
    const expired = t.services.team.invite(null, { email: 'late@example.com', role: 'member' });
    t.clock.advance(INVITE_TTL_MS);
    expect((await dashboardClient(t).call('POST', '/invites/preview', { token: tokenOf(expired.url) })).status).toBe(401);
    expect((await dashboardClient(t).acceptInvite(tokenOf(expired.url), 'Late', PASSWORD)).status).toBe(401);

    const o = await owner(t);
    const revoked = t.services.team.invite(null, { email: 'gone@example.com', role: 'member' });
    expect((await o.call('DELETE', `/invites/${revoked.id}`)).status).toBe(204);
    expect((await dashboardClient(t).acceptInvite(tokenOf(revoked.url), 'Gone', PASSWORD)).status).toBe(401);

    const first = t.services.team.invite(null, { email: 'twice@example.com', role: 'member' });
    const second = t.services.team.invite(null, { email: 'twice@example.com', role: 'admin' });
    expect((await dashboardClient(t).acceptInvite(tokenOf(first.url), 'Twice', PASSWORD)).status).toBe(401);
    const forged = tokenOf(second.url).slice(0, -3) + 'abc';
    expect((await dashboardClient(t).acceptInvite(forged, 'Forger', PASSWORD)).status).toBe(401);
    expect(t.services.identity.listUsers().map((u) => u.email)).not.toEqual(
      expect.arrayContaining(['late@example.com', 'gone@example.com', 'twice@example.com']),
    );
    expect((await dashboardClient(t).acceptInvite(tokenOf(second.url), 'Twice', PASSWORD)).status).toBe(204);
    expect(t.services.identity.findUserByEmail('twice@example.com')?.role).toBe('admin');
  });

  it('keeps at least one owner; only owners make, unmake or remove owners', async () => {
    const o = await owner(t);
    const admin = await teammate(t, 'admin1@example.com', 'admin');
    const ownerId = t.owner.id;
    const lastOwner = await o.call('PATCH', `/users/${ownerId}`, { role: 'member' });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(lastOwner.body.detail).toMatch(/last owner/);
    expect((await o.call('DELETE', `/users/${ownerId}`)).status).toBe(409);

    expect((await admin.call('POST', '/invites', { email: 'boss@example.com', role: 'owner' })).status).toBe(403);
    expect((await admin.call('PATCH', `/users/${ownerId}`, { role: 'admin' })).status).toBe(403);
    expect((await admin.call('DELETE', `/users/${ownerId}`)).status).toBe(403);
    expect((await admin.call('POST', '/invites', { email: 'helper@example.com', role: 'member' })).status).toBe(201);
    expect((await o.call('PATCH', `/users/${ownerId}`, { role: 'superuser' })).status).toBe(400);

    const second = t.services.team.findByEmail('admin1@example.com');
    expect((await o.call('PATCH', `/users/${second.id}`, { role: 'owner' })).body.role).toBe('owner');
    // Two owners: now the first may step down, and the last one left may not.
    expect((await o.call('PATCH', `/users/${ownerId}`, { role: 'admin' })).status).toBe(200);
    expect((await admin.call('PATCH', `/users/${second.id}`, { role: 'admin' })).status).toBe(409);
    expect((await admin.call('PATCH', `/users/${ownerId}`, { role: 'owner' })).status).toBe(200);
  });

  it('removing a user ends their sessions and revokes their keys; they can be invited again', async () => {
    const o = await owner(t);
    const bob = await teammate(t, 'bob@example.com', 'admin');
    const key = (await bob.call('POST', '/keys', { name: 'bob ci', scopes: ['meetings:read'] })).body.key as string;
    expect((await t.request('GET', '/api/v1/public/meetings', { key })).status).toBe(200);
    const bobId = t.services.team.findByEmail('bob@example.com').id;

    expect((await o.call('DELETE', `/users/${bobId}`)).status).toBe(204);
    expect((await bob.call('GET', '/session')).status).toBe(401);
    expect((await t.request('GET', '/api/v1/public/meetings', { key })).status).toBe(401);
    expect((await dashboardClient(t).call('POST', '/sign-in/password', { email: 'bob@example.com', password: PASSWORD })).status).toBe(401);
    expect((await o.call('GET', '/users')).body.data.map((u: { email: string }) => u.email)).not.toContain('bob@example.com');

    const back = await teammate(t, 'bob@example.com', 'member');
    expect((await back.call('GET', '/session')).body.user).toMatchObject({ id: bobId, role: 'member' });
    expect((await t.request('GET', '/api/v1/public/meetings', { key })).status).toBe(401);
  });

  it('a key never does more than its user’s role: an admin’s webhooks key stops managing webhooks once they are a member', async () => {
    const o = await owner(t);
    const carol = await teammate(t, 'carol@example.com', 'admin');
    const created = await carol.call('POST', '/keys', { name: 'hooks', scopes: ['meetings:read', 'webhooks:write'] });
    const key = created.body.key as string;
    expect((await t.request('GET', '/api/v1/public/webhook-endpoints', { key })).status).toBe(200);
    const carolId = t.services.team.findByEmail('carol@example.com').id;
    expect((await o.call('PATCH', `/users/${carolId}`, { role: 'member' })).status).toBe(200);
    const refused = await t.request('GET', '/api/v1/public/webhook-endpoints', { key });
    expect(refused.status).toBe(403);
    expect(refused.body.required_scope).toBe('webhooks:write');
    expect((await t.request('GET', '/api/v1/public/meetings', { key })).status).toBe(200);
  });

  // About 200 requests, and the project database starts on the first call to /project/tables: a longer timeout.
  it('the role matrix: every dashboard API route, for each role, allows or refuses with 403 problem+json', async () => {
    const router = dashboardApiRouter(
      dashboardApiDeps({ config: t.config, services: t.services, logger: silent, project: t.project }),
      publicRoutes({
        config: t.config,
        services: t.services,
        logger: silent,
      }),
    );
    const routes = routesOf(router);
    expect(routes.filter((r) => !(r in EXPECTED))).toEqual([]);
    expect(Object.keys(EXPECTED).filter((r) => !routes.includes(r))).toEqual([]);

    const clients: Record<Role, Client> = {
      owner: await owner(t),
      admin: await teammate(t, 'matrix-admin@example.com', 'admin'),
      member: await teammate(t, 'matrix-member@example.com', 'member'),
    };
    const outcomes: string[] = [];
    for (const route of routes) {
      const access = EXPECTED[route]!;
      if (access === 'public' || route === 'POST /sign-out') continue;
      const [method, path] = route.split(' ') as [string, string];
      const concrete = path.replace(/:[A-Za-z_]+/g, 'nothing_here');
      await Promise.all(
        (['owner', 'admin', 'member'] as const).map(async (role) => {
          const res = await clients[role].call(method, concrete, method === 'GET' || method === 'DELETE' ? undefined : {});
          const denied = res.status === 403;
          const problem = /application\/problem\+json/.test(res.headers.get('content-type') ?? '');
          const expected = access === 'manage' && role === 'member';
          if (denied !== expected || res.status === 401 || (denied && !problem)) {
            outcomes.push(`${role} ${route}: ${res.status} ${res.body?.detail ?? ''}`);
          }
        }),
      );
    }
    expect(outcomes).toEqual([]);
    const signOut = await clients.member.call('POST', '/sign-out');
    expect(signOut.status).toBe(204);
  }, 120_000);
});
