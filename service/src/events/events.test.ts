import { EVENT_TYPES } from './event-types';
import { SCOPES } from '../keys/scopes';
import { seedMeeting } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

describe('events: emitters, GET /events and the polling feed', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_BASE_URL: 'https://meet.example.com' });
    key = t.key();
  });
  afterAll(() => t.close());

  const get = (path: string, k = key) => t.request('GET', `/api/v1/public${path}`, { key: k });
  const eventCount = () => t.services.db.prepare('SELECT count(*) FROM events').pluck().get() as number;

  describe('emitters', () => {
    it('meeting.started (the rooms’ service function) and meeting.ended (PATCH status ended)', async () => {
      const m = seedMeeting(t, { title: 'Lifecycle' });
      t.services.meetings.start(m);
      t.services.meetings.start(t.services.meetings.findAnywhere(m.id));
      t.clock.advance(60_000);
      expect((await t.request('PATCH', `/api/v1/public/meetings/${m.id}`, { key, body: { status: 'ended' } })).status).toBe(200);
      const started = (await get('/triggers/meeting.started?limit=1')).body.data[0];
      const ended = (await get('/triggers/meeting.ended?limit=1')).body.data[0];
      expect(started).toEqual({
        id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
        type: 'meeting.started',
        created_at: expect.any(String),
        data: { meeting: { id: m.id, code: m.code, title: 'Lifecycle', status: 'live', started_at: expect.any(String), ended_at: null } },
      });
      expect(ended.data.meeting).toMatchObject({ id: m.id, status: 'ended', ended_at: new Date(t.clock.now()).toISOString() });
      expect(ended.created_at).toBe(new Date(t.clock.now()).toISOString());
      const all = (await get('/events?limit=100')).body.data.filter(
        (e: { data: { meeting: { id: string } } }) => e.data.meeting.id === m.id,
      );
      expect(all.map((e: { type: string }) => e.type)).toEqual(['meeting.ended', 'meeting.started']);
    });

    it('registration.created for a new registration only, never for a repeat', async () => {
      seedMeeting(t, { kind: 'webinar', slug: 'emit-webinar', title: 'Emit' });
      const before = eventCount();
      const reg = await t.request('POST', '/api/v1/public/webinars/emit-webinar/registrations', {
        key,
        body: { email: 'e@example.com', name: 'E' },
      });
      await t.request('POST', '/api/v1/public/webinars/emit-webinar/registrations', { key, body: { email: 'E@example.com', name: 'E' } });
      expect(eventCount()).toBe(before + 1);
      const event = (await get('/triggers/registration.created?limit=1')).body.data[0];
      expect(event.data).toEqual({
        registration: { id: reg.body.id, email: 'e@example.com', name: 'E', join_url: reg.body.join_url, created_at: reg.body.created_at },
        webinar: { slug: 'emit-webinar', title: 'Emit', meeting_id: reg.body.webinar.meeting_id },
        meeting: expect.objectContaining({ id: reg.body.webinar.meeting_id, status: 'scheduled' }),
      });
    });

    it('recording.ready, transcript.ready and summary.ready (the media pipeline’s service functions)', async () => {
      const m = seedMeeting(t, { title: 'Media' });
      const rec = t.services.recordings.start(m.id, 'video');
      t.services.recordings.markReady(rec.id, {
        fileName: `${rec.id}.webm`,
        contentType: 'video/webm',
        sizeBytes: 2048,
        durationSeconds: 61,
      });
      t.services.transcripts.complete(m.id, {
        language: 'en',
        segments: [
          { start: 0, end: 1.5, speaker: null, text: 'Hello there.' },
          { start: 1.5, end: 3, speaker: null, text: 'Bye.' },
        ],
      });
      t.services.summaries.save(m.id, { tldr: 'Greetings.', decisions: [], action_items: [], generator: 'extractive' });
      const recording = (await get('/triggers/recording.ready?limit=1')).body.data[0];
      expect(recording.data.recording).toMatchObject({
        id: rec.id,
        status: 'ready',
        duration_seconds: 61,
        download_url: expect.stringContaining(`https://meet.example.com/api/v1/public/recordings/${rec.id}/download?token=`),
      });
      expect(recording.data.meeting.id).toBe(m.id);
      expect((await get('/triggers/transcript.ready?limit=1')).body.data[0].data.transcript).toEqual({
        breakout_room_id: null,
        language: 'en',
        segment_count: 2,
        speakers: [],
      });
      expect((await get('/triggers/summary.ready?limit=1')).body.data[0].data.summary).toEqual({ tldr: 'Greetings.' });
      expect((await get(`/meetings/${m.id}/transcript`)).body.text).toBe('Hello there. Bye.');
      expect(() =>
        t.services.recordings.markReady(rec.id, { fileName: 'x', contentType: 'video/webm', sizeBytes: 1, durationSeconds: 1 }),
      ).toThrow(/already ready/);
    });

    it('writes nothing when the change it describes rolls back', () => {
      const m = seedMeeting(t);
      const before = eventCount();
      expect(() =>
        t.services.transaction(() => {
          t.services.meetings.start(m);
          throw new Error('the room failed to open');
        }),
      ).toThrow('the room failed to open');
      expect(eventCount()).toBe(before);
      expect(t.services.meetings.findAnywhere(m.id).status).toBe('scheduled');
    });
  });

  describe('feed', () => {
    let ids: string[];
    beforeAll(async () => {
      seedMeeting(t, { kind: 'webinar', slug: 'feed-a' });
      seedMeeting(t, { kind: 'webinar', slug: 'feed-b' });
      for (let i = 0; i < 5; i++) {
        for (const slug of ['feed-a', 'feed-b']) {
          t.clock.advance(1);
          await t.request('POST', `/api/v1/public/webinars/${slug}/registrations`, {
            key,
            body: { email: `p${i}@example.com`, name: `P${i}` },
          });
        }
      }
      ids = (await get('/triggers/registration.created?limit=100')).body.data.map((e: { id: string }) => e.id);
    });

    it('lists the newest first without since, with next_cursor the newest id', async () => {
      const res = await get('/triggers/registration.created?limit=3');
      expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 3));
      expect(res.body.next_cursor).toBe(ids[0]);
      expect([...ids].sort().reverse()).toEqual(ids);
    });

    it('lists strictly after since, oldest first, and returns since as the cursor when nothing is new', async () => {
      const oldestFirst = [...ids].reverse();
      const res = await get(`/triggers/registration.created?since=${oldestFirst[1]}&limit=3`);
      expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(oldestFirst.slice(2, 5));
      expect(res.body.next_cursor).toBe(oldestFirst[4]);
      const none = await get(`/triggers/registration.created?since=${ids[0]}`);
      expect(none.body).toEqual({ data: [], next_cursor: ids[0] });
    });

    it('filters registration.created by webinar slug', async () => {
      const res = await get('/triggers/registration.created?slug=feed-b&limit=100');
      expect(res.body.data).toHaveLength(5);
      expect(res.body.data.every((e: { data: { webinar: { slug: string } } }) => e.data.webinar.slug === 'feed-b')).toBe(true);
      const after = await get(`/triggers/registration.created?slug=feed-b&since=${res.body.data[2].id}`);
      expect(after.body.data.map((e: { id: string }) => e.id)).toEqual([res.body.data[1].id, res.body.data[0].id]);
      expect((await get('/triggers/meeting.started?slug=feed-b')).status).toBe(400);
    });

    it('GET /events mixes every type the key can read, and leaves out the others', async () => {
      const all = (await get('/events?limit=100')).body.data.map((e: { type: string }) => e.type);
      expect(new Set(all)).toEqual(new Set(EVENT_TYPES));
      const meetingsOnly = t.key(['meetings:read']);
      const visible = (await get('/events?limit=100', meetingsOnly)).body.data.map((e: { type: string }) => e.type);
      expect(new Set(visible)).toEqual(new Set(['meeting.started', 'meeting.ended']));
      const res = await get('/triggers/registration.created', meetingsOnly);
      expect(res.status).toBe(403);
      expect(res.body.required_scope).toBe('webinars:write');
    });

    it('404s unknown event types and rejects bad since and limit values', async () => {
      expect((await get('/triggers/meeting.exploded')).status).toBe(404);
      for (const [q, param] of [
        ['since=nope', 'since'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['since=evt_1&since=evt_2', 'since'],
      ]) {
        const res = await get(`/events?${q}`);
        expect([q, res.status, res.body.param]).toEqual([q, 400, param]);
      }
    });

    it('shows no event of an organization the key cannot reach', async () => {
      const other = t.services.identity.createOrganization(t.owner.id, 'Elsewhere');
      seedMeeting(t, { kind: 'webinar', slug: 'elsewhere' }, other.id);
      const unrestricted = t.key();
      await t.request('POST', '/api/v1/public/webinars/elsewhere/registrations', {
        key: unrestricted,
        body: { email: 'x@example.com', name: 'X' },
      });
      const restricted = t.key(SCOPES, { org: t.org.id });
      for (const path of [
        '/events?limit=100',
        '/triggers/registration.created?limit=100',
        `/triggers/registration.created?since=${ids.at(-1)}&limit=100`,
      ]) {
        const slugs = (await get(path, restricted)).body.data.map((e: { data: { webinar?: { slug: string } } }) => e.data.webinar?.slug);
        expect(slugs).not.toContain('elsewhere');
      }
      expect((await get('/triggers/registration.created?limit=1', unrestricted)).body.data[0].data.webinar.slug).toBe('elsewhere');
    });
  });

  it('a poller following next_cursor sees every event exactly once, in order, while events are written concurrently', async () => {
    seedMeeting(t, { kind: 'webinar', slug: 'busy-webinar' });
    const cursor0 = (await get('/triggers/registration.created?limit=1')).body.next_cursor as string;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; i < 40; i++) {
        await t.request('POST', '/api/v1/public/webinars/busy-webinar/registrations', {
          key,
          body: { email: `w${w}-${i}@example.com`, name: 'W' },
        });
      }
    });
    const seen: string[] = [];
    let cursor = cursor0;
    let writing = true;
    const done = Promise.all(writers).then(() => (writing = false));
    for (let polls = 0; polls < 2000 && (writing || polls < 3); polls++) {
      const res = await get(`/triggers/registration.created?since=${cursor}&limit=3&slug=busy-webinar`);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.next_cursor;
      if (!writing && res.body.data.length === 0) break;
    }
    await done;
    for (let drain = 0; drain < 100; drain++) {
      const res = await get(`/triggers/registration.created?since=${cursor}&limit=100&slug=busy-webinar`);
      if (res.body.data.length === 0) break;
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.next_cursor;
    }
    const stored = t.services.db.prepare("SELECT id FROM events WHERE slug = 'busy-webinar' ORDER BY id").pluck().all();
    expect(stored).toHaveLength(160);
    expect(seen).toEqual(stored);
  });
});
