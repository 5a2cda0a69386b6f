import { seedMeeting } from '../testing/fixtures';
import { newHolderSecret } from '../testing/room-client';
import { startTestServer, type TestServer } from '../testing/harness';

describe('room links', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_BASE_URL: 'https://meet.example.com' });
    key = t.key();
  });
  afterAll(() => t.close());
  const hostLink = (meeting: string, body?: unknown) => t.request('POST', `/api/v1/public/meetings/${meeting}/host-links`, { key, body });
  const tokenOf = (url: string, param: string) => new URL(url).searchParams.get(param)!;

  it('issues a signed host link to the room page that grants the host role until it expires', async () => {
    const meeting = seedMeeting(t);
    const res = await hostLink(meeting.code, { ttl_seconds: 600 });
    expect(res.status).toBe(201);
    expect(res.body.url).toMatch(new RegExp(`^https://meet\\.example\\.com/m/${meeting.code}\\?host=[\\w-]+\\.[\\w-]+$`));
    expect(Date.parse(res.body.expires_at)).toBe(Math.floor((t.clock.now() + 600_000) / 1000) * 1000);
    const grant = t.services.roomLinks.grantOf(tokenOf(res.body.url, 'host'));
    expect(grant).toEqual({ meetingId: meeting.id, role: 'host', identity: expect.stringMatching(/^host-[0-9a-f]{12}$/) });
    t.clock.advance(600_000);
    expect(() => t.services.roomLinks.grantOf(tokenOf(res.body.url, 'host'))).toThrow(expect.objectContaining({ code: 'unauthorized' }));
  });

  it('lasts two hours by default, and refuses lifetimes outside 60 s to 24 h', async () => {
    const meeting = seedMeeting(t);
    const res = await hostLink(meeting.id);
    expect(Date.parse(res.body.expires_at) - t.clock.now()).toBeGreaterThan(2 * 3600_000 - 1000);
    for (const ttl_seconds of [59, 86_401, 1.5, '600']) {
      const refused = await hostLink(meeting.id, { ttl_seconds });
      expect(refused.status).toBe(400);
      expect(refused.body.param).toBe('ttl_seconds');
    }
  });

  it('refuses a host link to an ended or cancelled meeting, and to one the key cannot reach', async () => {
    const cancelled = seedMeeting(t, { scheduled_at: '2030-01-01T10:00:00Z' });
    await t.request('DELETE', `/api/v1/public/meetings/${cancelled.id}`, { key });
    expect((await hostLink(cancelled.id)).status).toBe(409);
    const other = t.services.identity.createOrganization(t.owner.id, 'Other');
    const elsewhere = seedMeeting(t, {}, other.id);
    const res = await t.request('POST', `/api/v1/public/meetings/${elsewhere.id}/host-links`, {
      key: t.key(['meetings:write'], { org: t.org.id }),
    });
    expect(res.status).toBe(404);
  });

  it('binds a host link to the first browser that redeems it: that browser may come back, another is refused and stays a guest', async () => {
    const meeting = seedMeeting(t);
    const token = tokenOf((await hostLink(meeting.id)).body.url, 'host');
    const redeem = (name: string, holder?: string) =>
      t.request('POST', `/rooms/v1/${meeting.code}/credentials`, { body: { name, host: token, ...(holder ? { holder } : {}) } });
    const first = newHolderSecret();
    const second = newHolderSecret();

    const ada = await redeem('Ada', first);
    expect(ada.status).toBe(201);
    expect(ada.body).toMatchObject({ role: 'host', name: 'Ada' });
    const mallory = await redeem('Mallory', second);
    expect(mallory.status).toBe(403);
    expect(mallory.headers.get('content-type')).toContain('application/problem+json');
    expect(mallory.body).toMatchObject({ code: 'forbidden', reason: 'host_link_taken' });
    expect(mallory.body.detail).toMatch(/already used in another browser/);
    expect(JSON.stringify(mallory.body)).not.toContain(first);

    // The same browser, after a reload or a reconnect, is the same host (the same identity: its old connection is replaced).
    const again = await redeem('Ada L.', first);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ role: 'host', name: 'Ada L.', identity: ada.body.identity });

    const anonymous = await redeem('Eve');
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.param).toBe('holder');
    for (const holder of ['short', 'x'.repeat(129), 'with spaces in it, sixteen+']) {
      const bad = await redeem('Eve', holder);
      expect(bad.status).toBe(400);
      expect(bad.body.param).toBe('holder');
    }
    // The secret is stored as its hash, nowhere in clear.
    const stored = t.services.db.prepare('SELECT holder_hash FROM host_link_holders').all() as { holder_hash: string }[];
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.some((row) => row.holder_hash === first)).toBe(false);

    // Each host link has its own holder: a new link made for Mallory works for her.
    const own = tokenOf((await hostLink(meeting.id)).body.url, 'host');
    const hers = await t.request('POST', `/rooms/v1/${meeting.code}/credentials`, { body: { name: 'Mallory', host: own, holder: second } });
    expect(hers.body).toMatchObject({ role: 'host', name: 'Mallory' });
    // A guest credential is still open to her through the plain join link.
    expect((await t.request('POST', `/rooms/v1/${meeting.code}/credentials`, { body: { name: 'Mallory' } })).body.role).toBe('guest');
  });

  it('gives each webinar registrant a personal signed link that names the registration, the same on every read', async () => {
    const webinar = seedMeeting(t, { kind: 'webinar', slug: 'links-webinar', scheduled_at: '2030-05-01T10:00:00+02:00' });
    const register = () =>
      t.request('POST', '/api/v1/public/webinars/links-webinar/registrations', { key, body: { email: 'lin@example.com', name: 'Lin' } });
    const first = await register();
    const again = await register();
    expect(again.body.join_url).toBe(first.body.join_url);
    expect(first.body.join_url).not.toContain(first.body.id);
    const grant = t.services.roomLinks.grantOf(tokenOf(first.body.join_url, 'invite'));
    expect(grant).toEqual({ meetingId: webinar.id, role: 'guest', registrationId: first.body.id, identity: `registrant-${first.body.id}` });
  });
});
