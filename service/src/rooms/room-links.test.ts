import { seedMeeting } from '../testing/fixtures';
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
