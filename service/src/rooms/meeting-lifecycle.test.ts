import { hostRoomCredential, joinRoom, seedMeeting, startTestServer, type RoomClient, type TestServer } from '@svc/service/testing';
import { isoAt } from '../shared/clock';
import { createLogger } from '../shared/logger';
import { EmptyRoomsWorker } from './empty-rooms.worker';

/**
 * The lifecycle of a scheduled meeting on the fake clock: scheduled -> live -> ended, early visits, the
 * empty-room grace period, and reopening. The empty-room worker is the production one, driven by runOnce().
 */
const GRACE_SECONDS = 60;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

let t: TestServer;
let key: string;
let worker: EmptyRoomsWorker;

beforeAll(async () => {
  t = await startTestServer(
    { SVC_ROOM_EMPTY_GRACE_SECONDS: String(GRACE_SECONDS), SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' },
    { media: true },
  );
  key = t.key();
  worker = new EmptyRoomsWorker(t.services.rooms, GRACE_SECONDS, createLogger('silent'));
});
afterAll(() => t.close());

const meetingRecord = async (id: string) => (await t.request('GET', `/api/v1/public/meetings/${id}`, { key })).body;
const guestCredential = (code: string, name = 'Guest') => t.request('POST', `/rooms/v1/${code}/credentials`, { body: { name } });
const eventsOf = async (meetingId: string): Promise<string[]> => {
  const res = await t.request('GET', '/api/v1/public/events?limit=100', { key });
  return (res.body.data as { type: string; data: { meeting?: { id: string } } }[])
    .filter((e) => e.data.meeting?.id === meetingId)
    .map((e) => e.type)
    .reverse();
};

/** Leaves the room; with `meetingId`, the last one out, also waits until the service has closed the empty room. */
async function leave(client: RoomClient, meetingId?: string): Promise<void> {
  await client.ok('leave', {});
  await client.closed();
  if (meetingId) await waitFor(() => t.services.rooms.liveRooms().every((room) => room.meeting.id !== meetingId));
}

/** A meeting that starts tomorrow at this time (to the minute). */
function tomorrowsMeeting(settings: { join_before_start_minutes?: number } = {}) {
  const startsAt = Math.ceil((t.clock.now() + DAY) / 60_000) * 60_000;
  return { startsAt, meeting: seedMeeting(t, { title: 'Tomorrow', scheduled_at: isoAt(startsAt), duration_minutes: 30, settings }) };
}

describe('a scheduled meeting before its time', () => {
  it('keeps an early guest out with the start time, and lets guests in from join_before_start_minutes before it', async () => {
    const { startsAt, meeting } = tomorrowsMeeting();
    const info = await t.request('GET', `/rooms/v1/${meeting.code}`);
    expect(info.body).toMatchObject({
      available: true,
      open: false,
      status: 'scheduled',
      starts_at: isoAt(startsAt),
      opens_at: isoAt(startsAt - 10 * 60_000),
    });
    const early = await guestCredential(meeting.code);
    expect(early.status).toBe(409);
    expect(early.headers.get('content-type')).toContain('application/problem+json');
    expect(early.body).toMatchObject({
      code: 'meeting_unavailable',
      reason: 'not_open',
      starts_at: isoAt(startsAt),
      opens_at: isoAt(startsAt - 10 * 60_000),
    });
    expect((await meetingRecord(meeting.id)).status).toBe('scheduled');

    t.clock.set(startsAt - 10 * 60_000 - 1);
    expect((await guestCredential(meeting.code)).status).toBe(409);
    t.clock.advance(1);
    expect((await t.request('GET', `/rooms/v1/${meeting.code}`)).body.open).toBe(true);
    const { client } = await joinRoom((await guestCredential(meeting.code)).body);
    expect((await meetingRecord(meeting.id)).status).toBe('live');
    client.close();
  });

  it('holds webinar registrants and embedded guests to the same opening; a host link opens the room at any time', async () => {
    const startsAt = Math.ceil((t.clock.now() + DAY) / 60_000) * 60_000;
    const webinar = seedMeeting(t, { title: 'Launch', kind: 'webinar', slug: `early-${startsAt}`, scheduled_at: isoAt(startsAt) });
    const registration = await t.request('POST', `/api/v1/public/webinars/${webinar.slug}/registrations`, {
      key,
      body: { email: 'early@example.com', name: 'Early Registrant' },
    });
    const invite = new URL(registration.body.join_url).searchParams.get('invite');
    const asRegistrant = await t.request('POST', `/rooms/v1/${webinar.code}/credentials`, { body: { invite } });
    expect(asRegistrant.body).toMatchObject({ code: 'meeting_unavailable', reason: 'not_open', starts_at: isoAt(startsAt) });
    const embed = await t.request('POST', '/api/v1/public/embed/tokens', { key, body: { meeting: webinar.code, name: 'Embedded' } });
    expect(embed.status).toBe(201);
    const asEmbedded = await t.request('POST', `/rooms/v1/${webinar.code}/credentials`, { body: { embed: embed.body.token } });
    expect(asEmbedded.body.reason).toBe('not_open');

    expect((await hostRoomCredential(t, key, webinar)).role).toBe('host');
    expect((await meetingRecord(webinar.id)).status).toBe('scheduled');
    t.clock.set(startsAt - 10 * 60_000);
    expect((await t.request('POST', `/rooms/v1/${webinar.code}/credentials`, { body: { invite } })).body).toMatchObject({
      role: 'guest',
      name: 'Early Registrant',
    });
  });

  it('follows the meeting’s own join_before_start_minutes, set on creation or by PATCH', async () => {
    const { startsAt, meeting } = tomorrowsMeeting({ join_before_start_minutes: 0 });
    expect((await meetingRecord(meeting.id)).settings.join_before_start_minutes).toBe(0);
    t.clock.set(startsAt - 60_000);
    expect((await guestCredential(meeting.code)).body.reason).toBe('not_open');
    const patched = await t.request('PATCH', `/api/v1/public/meetings/${meeting.id}`, {
      key,
      body: { settings: { join_before_start_minutes: 5 } },
    });
    expect(patched.body.settings).toMatchObject({ join_before_start_minutes: 5, waiting_room: false });
    expect((await guestCredential(meeting.code)).status).toBe(201);
    for (const bad of [-1, 10_081, 2.5, '5']) {
      const refused = await t.request('PATCH', `/api/v1/public/meetings/${meeting.id}`, {
        key,
        body: { settings: { join_before_start_minutes: bad } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.param).toBe('settings.join_before_start_minutes');
    }
  });

  it('lets a host open the room early; once the room empties before the start, the meeting goes back to scheduled, not ended', async () => {
    const { startsAt, meeting } = tomorrowsMeeting();
    const host = await joinRoom(await hostRoomCredential(t, key, meeting));
    expect((await meetingRecord(meeting.id)).status).toBe('live');
    // While the host is in, guests may join too: the meeting is live.
    const guest = await joinRoom((await guestCredential(meeting.code, 'Early bird')).body);
    await leave(guest.client);
    await leave(host.client, meeting.id);

    t.clock.advance(GRACE_SECONDS * 1000 - 1);
    worker.runOnce();
    expect((await meetingRecord(meeting.id)).status).toBe('live');
    t.clock.advance(1);
    expect(worker.runOnce()).toBeGreaterThanOrEqual(1);
    const waiting = await meetingRecord(meeting.id);
    expect(waiting).toMatchObject({ status: 'scheduled', started_at: null, ended_at: null });
    expect((await guestCredential(meeting.code)).body.reason).toBe('not_open');

    // Hours later the sweep still leaves it alone; at its time people come and it runs as usual.
    t.clock.advance(6 * HOUR);
    worker.runOnce();
    expect((await meetingRecord(meeting.id)).status).toBe('scheduled');
    t.clock.set(startsAt);
    const ann = await joinRoom((await guestCredential(meeting.code, 'Ann')).body);
    expect((await meetingRecord(meeting.id)).status).toBe('live');
    t.clock.advance(20 * 60_000);
    await leave(ann.client, meeting.id);
    t.clock.advance(GRACE_SECONDS * 1000);
    worker.runOnce();
    expect((await meetingRecord(meeting.id)).status).toBe('ended');
    expect(await eventsOf(meeting.id)).toEqual(['meeting.started', 'meeting.started', 'meeting.ended']);
  });

  it('ends a meeting that emptied after its start once the grace period is over, and not before', async () => {
    const { startsAt, meeting } = tomorrowsMeeting();
    t.clock.set(startsAt - 5 * 60_000);
    const { client } = await joinRoom((await guestCredential(meeting.code)).body);
    t.clock.set(startsAt + 60_000);
    await leave(client, meeting.id);
    t.clock.advance(GRACE_SECONDS * 1000 - 1);
    worker.runOnce();
    expect((await meetingRecord(meeting.id)).status).toBe('live');
    t.clock.advance(1);
    worker.runOnce();
    expect((await meetingRecord(meeting.id)).status).toBe('ended');
  });
});

describe('reopening', () => {
  const reopen = (id: string, headers: Record<string, string> = {}) =>
    t.request('POST', `/api/v1/public/meetings/${id}/reopen`, { key, headers });

  it('puts an ended meeting back to scheduled with the same code; it goes live again when someone joins', async () => {
    const meeting = seedMeeting(t, { title: 'Ended too soon' });
    const first = await joinRoom((await guestCredential(meeting.code)).body);
    expect((await t.request('PATCH', `/api/v1/public/meetings/${meeting.id}`, { key, body: { status: 'ended' } })).status).toBe(200);
    await first.client.closed();
    expect((await guestCredential(meeting.code)).body).toMatchObject({ code: 'meeting_unavailable', reason: 'ended' });
    // PATCH keeps to its contract: it can end a meeting, not bring one back.
    expect((await t.request('PATCH', `/api/v1/public/meetings/${meeting.id}`, { key, body: { status: 'scheduled' } })).status).toBe(400);

    const reopened = await reopen(meeting.code, { 'Idempotency-Key': 'reopen-1' });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ id: meeting.id, code: meeting.code, status: 'scheduled', started_at: null, ended_at: null });
    const replay = await reopen(meeting.code, { 'Idempotency-Key': 'reopen-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(reopened.body);
    expect((await reopen(meeting.id)).body.status).toBe('scheduled');

    const { client } = await joinRoom((await guestCredential(meeting.code)).body);
    expect((await meetingRecord(meeting.id)).status).toBe('live');
    expect((await reopen(meeting.id)).body.status).toBe('live');
    client.close();
    expect(await eventsOf(meeting.id)).toEqual(['meeting.started', 'meeting.ended', 'meeting.started']);
  });

  it('reopens an ended or cancelled webinar with its slug, so registration works again; refuses a body and unknown meetings', async () => {
    const webinar = seedMeeting(t, { title: 'Launch', kind: 'webinar', slug: 'reopened-launch', scheduled_at: '2031-03-01T10:00:00Z' });
    expect((await t.request('DELETE', `/api/v1/public/meetings/${webinar.id}`, { key })).body.status).toBe('cancelled');
    const register = () =>
      t.request('POST', '/api/v1/public/webinars/reopened-launch/registrations', { key, body: { email: 'ida@example.com', name: 'Ida' } });
    expect((await register()).status).toBe(409);
    const taken = await t.request('POST', '/api/v1/public/meetings', {
      key,
      body: { title: 'Again', kind: 'webinar', slug: 'reopened-launch' },
    });
    expect(taken.status).toBe(409);

    const reopened = await reopen(webinar.id);
    expect(reopened.body).toMatchObject({ status: 'scheduled', slug: 'reopened-launch', scheduled_at: '2031-03-01T10:00:00Z' });
    expect((await register()).status).toBe(201);

    const withBody = await t.request('POST', `/api/v1/public/meetings/${webinar.id}/reopen`, { key, body: { status: 'live' } });
    expect(withBody.status).toBe(400);
    expect((await reopen('zzz-zzzz-zzz')).status).toBe(404);
    const readOnly = await t.request('POST', `/api/v1/public/meetings/${webinar.id}/reopen`, { key: t.key(['meetings:read']) });
    expect(readOnly.status).toBe(403);
  });
});

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
