import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { bootstrap } from '../bootstrap';
import { loadConfig } from '../config';
import { ManualClock } from '../shared/clock';
import { createLogger } from '../shared/logger';
import { dashboardClient, startTestServer, type TestServer } from '../testing';
import { SIGN_IN_LINK_TTL_MS } from './dashboard.service';

const client = dashboardClient;

const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

/** A POST to the dashboard API through node:http, which (unlike fetch) sends exactly the headers given, Host included. */
function rawPost(
  t: TestServer,
  pathname: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: { detail?: string } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${t.url}/dashboard/api${pathname}`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('dashboard sign-in and sessions', () => {
  let t: TestServer;
  let distDir: string;
  beforeAll(async () => {
    distDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dash-dist-'));
    fs.writeFileSync(
      path.join(distDir, 'index.html'),
      '<!doctype html><script type="module" src="/assets/dashboard/app-abc123.js"></script>',
    );
    fs.writeFileSync(path.join(distDir, 'app-abc123.js'), 'console.log(1)');
    t = await startTestServer({ SVC_DASHBOARD_DIR: distDir });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(distDir, { recursive: true, force: true });
  });

  it('signs in once with a link: HttpOnly SameSite=Lax cookie, 7 days; the second use and a forged link fail', async () => {
    const link = t.services.dashboard.signInLink();
    expect(link.url).toMatch(new RegExp(`^${t.config.baseUrl}/sign-in#token=`));
    const c = client(t);
    const res = await c.call('POST', '/sign-in/link', { token: tokenOf(link.url) });
    expect(res.status).toBe(204);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(cookie).toMatch(/Max-Age=604800/);
    const session = await c.call('GET', '/session');
    expect(session.status).toBe(200);
    expect(session.body.user.email).toBe('owner@localhost');

    const again = await client(t).call('POST', '/sign-in/link', { token: tokenOf(link.url) });
    expect(again.status).toBe(401);
    expect(again.body.detail).toMatch(/already used/);
    const forged = tokenOf(link.url).slice(0, -2) + 'xx';
    expect((await client(t).call('POST', '/sign-in/link', { token: forged })).status).toBe(401);
  });

  it('refuses a link after 15 minutes', async () => {
    const link = t.services.dashboard.signInLink();
    t.clock.advance(SIGN_IN_LINK_TTL_MS);
    expect((await client(t).signIn(tokenOf(link.url))).status).toBe(401);
  });

  it('stores only hashes: no session token in the database, the password as scrypt', async () => {
    const c = client(t);
    await c.signIn(tokenOf(t.services.dashboard.signInLink().url));
    const token = c.cookie()!.split('=')[1]!;
    const dump = JSON.stringify(t.services.db.prepare('SELECT * FROM dashboard_sessions').all());
    expect(dump).not.toContain(token.split('.')[1]);
    t.services.dashboard.setPassword('owner@localhost', 'correct horse battery');
    const stored = t.services.db.prepare('SELECT password_hash FROM users').pluck().get() as string;
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored).not.toContain('correct horse');
  });

  it('signs in with a password; a wrong one or an unknown email fails the same way; short passwords are refused', async () => {
    t.services.dashboard.setPassword('owner@localhost', 'correct horse battery');
    expect(() => t.services.dashboard.setPassword('owner@localhost', 'short')).toThrow(/10 to 200/);
    expect(() => t.services.dashboard.setPassword('nobody@example.com', 'long enough password')).toThrow(/not found/);
    const wrong = await client(t).call('POST', '/sign-in/password', { email: 'owner@localhost', password: 'wrong horse battery' });
    const unknown = await client(t).call('POST', '/sign-in/password', { email: 'nobody@example.com', password: 'correct horse battery' });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.body.detail).toBe(unknown.body.detail);
    const c = client(t);
    expect((await c.call('POST', '/sign-in/password', { email: 'OWNER@localhost', password: 'correct horse battery' })).status).toBe(204);
    expect((await c.call('GET', '/session')).status).toBe(200);
  });

  it('rate-limits failed sign-ins per account: after 10 failures even the right password is refused until the window passes', async () => {
    t.clock.advance(16 * 60_000);
    t.services.dashboard.setPassword('owner@localhost', 'correct horse battery');
    for (let i = 0; i < 10; i++) {
      expect(
        (await client(t).call('POST', '/sign-in/password', { email: 'owner@localhost', password: `wrong ${i} password` })).status,
      ).toBe(401);
    }
    const limited = await client(t).call('POST', '/sign-in/password', { email: 'owner@localhost', password: 'correct horse battery' });
    expect(limited.status).toBe(429);
    expect((await client(t).signIn(tokenOf(t.services.dashboard.signInLink().url))).status).toBe(429);
    t.clock.advance(15 * 60_000);
    expect(
      (await client(t).call('POST', '/sign-in/password', { email: 'owner@localhost', password: 'correct horse battery' })).status,
    ).toBe(204);
  });

  it('checks Origin and the CSRF token on every state-changing request', async () => {
    const c = client(t);
    await c.signIn(tokenOf(t.services.dashboard.signInLink().url));
    const body = { name: 'csrf', scopes: ['meetings:read'] };
    const noToken = await c.call('POST', '/keys', body, { 'x-csrf-token': '' });
    expect(noToken.status).toBe(403);
    expect(noToken.body.detail).toMatch(/CSRF/);
    expect((await c.call('POST', '/keys', body, { 'x-csrf-token': 'A'.repeat(43) })).status).toBe(403);
    c.origin = 'http://evil.example';
    const foreign = await c.call('POST', '/keys', body);
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toMatch(/Cross-origin/);
    expect((await c.call('POST', '/sign-in/password', { email: 'owner@localhost', password: 'x' })).status).toBe(403);
    expect((await c.call('GET', '/session')).status).toBe(200);
    c.origin = t.url;
    expect((await c.call('POST', '/keys', body)).status).toBe(201);
    expect((await c.call('DELETE', '/v1/meetings/mtg_nope', undefined, { 'x-csrf-token': '' })).status).toBe(403);
  });

  it('refuses a write without Origin, and one whose Origin matches a Host the service does not answer to (DNS rebinding)', async () => {
    const c = client(t);
    await c.signIn(tokenOf(t.services.dashboard.signInLink().url));
    const session = { cookie: c.cookie()!, 'x-csrf-token': (await c.call('GET', '/session')).body.csrf_token };
    const keys = () => t.services.db.prepare('SELECT COUNT(*) FROM api_keys').pluck().get();
    const before = keys();
    const body = { name: 'no-origin', scopes: ['meetings:read'] };
    const port = new URL(t.url).port;
    const refused = [
      await rawPost(t, '/keys', session, body),
      await rawPost(t, '/keys', { ...session, host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, body),
      await rawPost(
        t,
        '/sign-in/password',
        { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
        { email: 'a@b.c', password: 'x' },
      ),
    ];
    expect(refused.map((r) => [r.status, r.body.detail])).toEqual(Array(3).fill([403, expect.stringMatching(/Cross-origin/)]));
    expect(keys()).toBe(before);
    expect((await rawPost(t, '/keys', { ...session, origin: t.url }, body)).status).toBe(201);
    expect((await rawPost(t, '/keys', { ...session, host: `localhost:${port}`, origin: `http://localhost:${port}` }, body)).status).toBe(
      201,
    );
  });

  it('ends the session on sign-out and after 7 days', async () => {
    const c = client(t);
    await c.signIn(tokenOf(t.services.dashboard.signInLink().url));
    const stolen = c.cookie()!;
    expect((await c.call('POST', '/sign-out')).status).toBe(204);
    const after = await t.request('GET', '/dashboard/api/session', { headers: { cookie: stolen } });
    expect(after.status).toBe(401);

    const d = client(t);
    await d.signIn(tokenOf(t.services.dashboard.signInLink().url));
    t.clock.advance(7 * 24 * 3600_000 - 1);
    expect((await d.call('GET', '/session')).status).toBe(200);
    t.clock.advance(1);
    const expired = await d.call('GET', '/session');
    expect(expired.status).toBe(401);
    expect(expired.headers.get('set-cookie')).toMatch(/svc_session=;/);
  });

  it('manages API keys: shown once, listed by prefix with last use, revoked with immediate effect', async () => {
    const c = client(t);
    await c.signIn(tokenOf(t.services.dashboard.signInLink().url));
    const created = await c.call('POST', '/keys', { name: 'ci', scopes: ['meetings:read'], organization_id: t.org.id });
    expect(created.status).toBe(201);
    const key: string = created.body.key;
    expect(key).toMatch(/^svc_sk_/);
    const listed = (await c.call('GET', '/keys')).body.data.find((k: { id: string }) => k.id === created.body.id);
    expect(JSON.stringify(listed)).not.toContain(key.slice(20));
    expect(listed).toMatchObject({ prefix: `${key.slice(0, 19)}…`, last_used_at: null, organization_id: t.org.id });
    expect((await t.request('GET', '/api/v1/public/meetings', { key })).status).toBe(200);
    const used = (await c.call('GET', '/keys')).body.data.find((k: { id: string }) => k.id === created.body.id);
    expect(used.last_used_at).not.toBeNull();
    expect((await c.call('POST', '/keys', { name: 'bad', scopes: ['root'] })).status).toBe(400);
    expect((await c.call('POST', `/keys/${created.body.id}/revoke`)).status).toBe(200);
    expect((await t.request('GET', '/api/v1/public/meetings', { key })).status).toBe(401);
    expect((await c.call('POST', `/keys/${created.body.id}/revoke`)).status).toBe(409);
  });

  it('serves the public API under /v1 to the session, with the same services and rules', async () => {
    const c = client(t);
    await c.signIn(tokenOf(t.services.dashboard.signInLink().url));
    const created = await c.call('POST', '/v1/meetings', { title: 'From the dashboard' }, { 'idempotency-key': 'ignored' });
    expect(created.status).toBe(201);
    expect((await c.call('GET', `/v1/meetings/${created.body.id}`)).body.title).toBe('From the dashboard');
    expect((await c.call('POST', '/v1/meetings', { title: '' })).status).toBe(400);
    expect((await client(t).call('GET', '/v1/meetings')).status).toBe(401);
  });

  it('ends a live meeting and lists a webinar’s registrations, for the session only', async () => {
    const c = client(t);
    await c.signIn(tokenOf(t.services.dashboard.signInLink().url));
    const meeting = (await c.call('POST', '/v1/meetings', { title: 'Live one' })).body;
    expect((await c.call('POST', `/meetings/${meeting.id}/end`)).status).toBe(409);
    t.services.meetings.start(t.services.meetings.findAnywhere(meeting.id));
    const ended = await c.call('POST', `/meetings/${meeting.id}/end`);
    expect(ended.body).toMatchObject({ status: 'ended' });

    const webinar = (await c.call('POST', '/v1/meetings', { title: 'Webinar', kind: 'webinar', slug: 'dash-webinar' })).body;
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      expect((await c.call('POST', '/v1/webinars/dash-webinar/registrations', { email, name: email })).status).toBe(201);
    }
    const first = await c.call('GET', `/meetings/${webinar.id}/registrations?limit=2`);
    expect(first.body.data.map((r: { email: string }) => r.email)).toEqual(['c@example.com', 'b@example.com']);
    const rest = await c.call('GET', `/meetings/${webinar.id}/registrations?cursor=${first.body.next_cursor}`);
    expect(rest.body).toMatchObject({ has_more: false, data: [{ email: 'a@example.com' }] });
    expect((await client(t).call('GET', `/meetings/${webinar.id}/registrations`)).status).toBe(401);
  });

  it('serves the pages with a strict CSP and the hashed assets cached for a year', async () => {
    for (const page of ['/', '/sign-in', '/meetings/mtg_x', '/settings/developers']) {
      const res = await t.request('GET', page);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    }
    const asset = await t.request('GET', '/assets/dashboard/app-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await t.request('GET', '/assets/dashboard/index.html')).status).toBe(404);
    expect((await t.request('GET', '/m/abc-defg-hij')).status).toBe(404);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('dashboard sign-in lockouts', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lockout-'));
  const clock = new ManualClock(Date.now());
  const start = () => bootstrap(loadConfig({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' }), { clock, logger: createLogger('silent') });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const PASSWORD = 'correct horse battery';

  it('locks an account after 10 failures from 10 different addresses, and a restart keeps the lockout', () => {
    const first = start();
    const email = first.services.identity.ensureOwner().owner.email;
    first.services.dashboard.setPassword(email, PASSWORD);
    for (let i = 0; i < 10; i++) {
      expect(() => first.services.dashboard.signInWithPassword(email, `wrong password ${i}`, `10.0.0.${i}`)).toThrow(/Wrong email/);
    }
    expect(() => first.services.dashboard.signInWithPassword(email, PASSWORD, '10.0.1.1')).toThrow(/Too many failed sign-ins/);
    first.close();

    const second = start();
    try {
      expect(() => second.services.dashboard.signInWithPassword(email.toUpperCase(), PASSWORD, '10.0.1.2')).toThrow(/Too many/);
      clock.advance(15 * 60_000);
      expect(second.services.dashboard.signInWithPassword(email, PASSWORD, '10.0.1.2').token).toMatch(/^svc_ds_/);
      const stored = JSON.stringify(second.services.db.prepare('SELECT * FROM dashboard_sign_in_failures').all());
      expect(stored).not.toMatch(/10\.0\.0|owner/);
    } finally {
      second.close();
    }
  });

  it('locks an address after 10 failures on different accounts, link sign-ins included', () => {
    const core = start();
    try {
      clock.advance(15 * 60_000);
      for (let i = 0; i < 10; i++) {
        expect(() => core.services.dashboard.signInWithPassword(`user${i}@example.com`, 'wrong password', '10.0.2.1')).toThrow(/Wrong/);
      }
      expect(() => core.services.dashboard.signInWithLink('forged.token', '10.0.2.1')).toThrow(/Too many/);
      const link = tokenOf(core.services.dashboard.signInLink().url);
      expect(core.services.dashboard.signInWithLink(link, '10.0.2.2').token).toMatch(/^svc_ds_/);
    } finally {
      core.close();
    }
  });
});
