/** Who may enter a room, over the room page's API: room info, credentials for hosts, registrants and guests, TURN credentials. */
import { createHmac } from 'node:crypto';
import { hostRoomCredential, principalIn, roomCredential, seedMeeting, startTestServer, type TestServer } from '@svc/service/testing';
import type { CreateMeetingInput } from '../meetings/meetings.schemas';
import type { JoinCredential } from './room.protocol';

let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' });
  key = t.key();
});
afterAll(() => t.close());

function meeting(input: Partial<CreateMeetingInput> = {}) {
  return seedMeeting(t, input);
}

const credential = (code: string, body?: Record<string, unknown>): Promise<JoinCredential> => roomCredential(t, code, body);
const hostCredential = (id: string, code: string): Promise<JoinCredential> => hostRoomCredential(t, key, { id, code });

describe('the room page and its API', () => {
  it('serves the page with a strict policy, and 404 for an unknown code', async () => {
    const m = meeting();
    const page = await t.request('GET', `/m/${m.code}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await t.request('GET', '/m/zzz-zzzz-zzz')).status).toBe(404);
  });

  it('describes a meeting for the pre-join screen, and says why one cannot be joined', async () => {
    const m = meeting({ title: 'Planning', settings: { waiting_room: true } });
    const info = await t.request('GET', `/rooms/v1/${m.code}`);
    expect(info.body).toMatchObject({ code: m.code, title: 'Planning', available: true, unavailable_reason: null, waiting_room: true });
    const cancelled = meeting();
    t.services.meetings.cancel(principalIn(t, t.org.id), cancelled.id);
    expect((await t.request('GET', `/rooms/v1/${cancelled.code}`)).body).toMatchObject({
      available: false,
      unavailable_reason: 'cancelled',
    });
    const unknown = await t.request('GET', '/rooms/v1/zzz-zzzz-zzz');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
  });

  it('refuses credentials without a usable name, with a bad link, or for a meeting that is over', async () => {
    const m = meeting();
    const noName = await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: {} });
    expect(noName.status).toBe(400);
    expect(noName.body.errors[0].param).toBe('name');
    const twoLines = await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: { name: 'a\nb' } });
    expect(twoLines.status).toBe(400);
    const forged = await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: { name: 'Mallory', host: 'eyJtIjoi.x' } });
    expect(forged.status).toBe(401);
    const other = meeting();
    const otherLink = await t.request('POST', `/api/v1/public/meetings/${other.id}/host-links`, { key, body: {} });
    const hostToken = new URL(otherLink.body.url).searchParams.get('host');
    expect((await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: { name: 'Eve', host: hostToken } })).status).toBe(401);

    const cancelled = meeting();
    t.services.meetings.cancel(principalIn(t, t.org.id), cancelled.id);
    const refused = await t.request('POST', `/rooms/v1/${cancelled.code}/credentials`, { body: { name: 'Late' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'meeting_unavailable', reason: 'cancelled' });
  });

  it('gives hosts a host credential and registrants one with the name they registered', async () => {
    const m = meeting();
    expect((await hostCredential(m.id, m.code)).role).toBe('host');
    const webinar = meeting({ kind: 'webinar', slug: `launch-${Date.now()}` });
    const registration = await t.request('POST', `/api/v1/public/webinars/${webinar.slug}/registrations`, {
      key,
      body: { email: 'ada@example.com', name: 'Ada Lovelace' },
    });
    const invite = new URL(registration.body.join_url).searchParams.get('invite');
    const cred = await credential(webinar.code, { name: 'Someone Else', invite });
    expect(cred).toMatchObject({ role: 'guest', name: 'Ada Lovelace' });
    // A personal link is no host link, whichever field it is sent in.
    const asHost = await t.request('POST', `/rooms/v1/${webinar.code}/credentials`, { body: { name: 'Ada', host: invite } });
    expect(asHost.status).toBe(401);
  });
});

describe('TURN', () => {
  it('hands browsers time-limited TURN credentials derived from the shared secret', async () => {
    const turn = await startTestServer({ SVC_TURN_URLS: 'turn:turn.example.com:3478', SVC_TURN_SECRET: 'coturn-secret' });
    try {
      const cred = await roomCredential(turn, seedMeeting(turn).code);
      const [server] = cred.ice_servers;
      expect(server!.urls).toEqual(['turn:turn.example.com:3478']);
      const [expiry, identity] = server!.username!.split(':');
      expect(identity).toBe(cred.identity);
      expect(Number(expiry)).toBeGreaterThan(turn.clock.now() / 1000 + 3600);
      expect(server!.credential).toBe(createHmac('sha1', 'coturn-secret').update(server!.username!).digest('base64'));
    } finally {
      await turn.close();
    }
  });
});
