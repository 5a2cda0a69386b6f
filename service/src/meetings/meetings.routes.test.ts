import { startTestServer, type TestServer } from '../testing/harness';

describe('meetings API', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_BASE_URL: 'https://meet.example.com' });
    key = t.key();
  });
  afterAll(() => t.close());

  const create = (body: unknown, headers?: Record<string, string>) => t.request('POST', '/api/v1/public/meetings', { key, body, headers });
  const count = () => (t.services.db.prepare('SELECT count(*) AS n FROM meetings').get() as { n: number }).n;

  it('creates a scheduled meeting: 201, 3-4-3 code, join_url on the base URL, scheduled_at with its offset', async () => {
    const res = await create({
      title: 'Design review',
      scheduled_at: '2026-12-01T10:00:00+02:00',
      duration_minutes: 45,
      settings: { waiting_room: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Design review',
      kind: 'meeting',
      scheduled_at: '2026-12-01T10:00:00+02:00',
      duration_minutes: 45,
      settings: { waiting_room: true, transcription_auto: false },
      status: 'scheduled',
      organization_id: t.org.id,
      started_at: null,
      ended_at: null,
    });
    expect(res.body.id).toMatch(/^mtg_[0-9a-z]{26}$/);
    expect(res.body.code).toMatch(/^[a-z]{3}-[a-z]{4}-[a-z]{3}$/);
    expect(res.body.join_url).toBe(`https://meet.example.com/m/${res.body.code}`);
    const again = await t.request('GET', `/api/v1/public/meetings/${res.body.id}`, { key });
    expect(again.body.scheduled_at).toBe('2026-12-01T10:00:00+02:00');
  });

  it('creates an instant meeting starting now with defaults when only a title is given', async () => {
    const res = await create({ title: 'Quick sync' });
    expect(res.status).toBe(201);
    expect(res.body.scheduled_at).toBe(new Date(t.clock.now()).toISOString());
    expect(res.body.duration_minutes).toBe(60);
    expect(res.body.settings).toEqual({
      waiting_room: false,
      transcription_auto: false,
      join_before_start_minutes: 10,
      recording_layout: 'active_speaker',
      captions: false,
    });
  });

  it('gives every meeting a unique code', async () => {
    const codes = new Set<string>();
    for (let i = 0; i < 30; i++) codes.add((await create({ title: `m${i}` })).body.code);
    expect(codes.size).toBe(30);
  });

  it('finds a meeting by id and by code, and 404s unknown ones', async () => {
    const { body: m } = await create({ title: 'Find me' });
    expect((await t.request('GET', `/api/v1/public/meetings/${m.code}`, { key })).body.id).toBe(m.id);
    expect((await t.request('GET', `/api/v1/public/meetings/${m.id}`, { key })).body.code).toBe(m.code);
    for (const unknown of ['mtg_00000000000000000000000000', 'zzz-zzzz-zzz', 'nonsense']) {
      const res = await t.request('GET', `/api/v1/public/meetings/${unknown}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('lists newest first with cursor pagination that visits every meeting once, and filters by status', async () => {
    const total = count();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `?limit=7&cursor=${cursor}` : '?limit=7';
      const res = await t.request('GET', `/api/v1/public/meetings${q}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(7);
      seen.push(...res.body.data.map((m: { id: string }) => m.id));
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect([...seen].sort().reverse()).toEqual(seen);

    const { body: doomed } = await create({ title: 'Doomed', scheduled_at: '2027-01-01T09:00:00Z' });
    await t.request('DELETE', `/api/v1/public/meetings/${doomed.id}`, { key });
    const cancelled = await t.request('GET', '/api/v1/public/meetings?status=cancelled', { key });
    expect(cancelled.body.data.map((m: { id: string }) => m.id)).toEqual([doomed.id]);
  });

  it('patches fields and merges settings', async () => {
    const { body: m } = await create({ title: 'Before', settings: { waiting_room: true } });
    const res = await t.request('PATCH', `/api/v1/public/meetings/${m.code}`, {
      key,
      body: { title: 'After', duration_minutes: 90, scheduled_at: '2027-03-01T08:30:00-05:00', settings: { transcription_auto: true } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: 'After',
      duration_minutes: 90,
      scheduled_at: '2027-03-01T08:30:00-05:00',
      settings: { waiting_room: true, transcription_auto: true },
    });
    expect((await t.request('GET', `/api/v1/public/meetings/${m.id}`, { key })).body.title).toBe('After');
  });

  it('ends a live meeting with status ended; other status changes are 409', async () => {
    const { body: m } = await create({ title: 'Lifecycle' });
    expect((await t.request('PATCH', `/api/v1/public/meetings/${m.id}`, { key, body: { status: 'ended' } })).status).toBe(409);
    t.clock.advance(1000);
    t.services.meetings.start(t.services.meetings.find(t.services.identity.authenticate(key)!, m.id));
    const live = await t.request('GET', `/api/v1/public/meetings/${m.id}`, { key });
    expect(live.body.status).toBe('live');
    expect(live.body.started_at).toBe(new Date(t.clock.now()).toISOString());
    t.clock.advance(60_000);
    const ended = await t.request('PATCH', `/api/v1/public/meetings/${m.id}`, { key, body: { status: 'ended' } });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ status: 'ended', ended_at: new Date(t.clock.now()).toISOString() });
    for (const body of [{ status: 'ended' }, { title: 'Too late' }]) {
      const res = await t.request('PATCH', `/api/v1/public/meetings/${m.id}`, { key, body });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('conflict');
    }
    expect((await t.request('DELETE', `/api/v1/public/meetings/${m.id}`, { key })).status).toBe(409);
    const other = await t.request('PATCH', `/api/v1/public/meetings/${m.id}`, { key, body: { status: 'live' } });
    expect(other.status).toBe(400);
    expect(other.body.param).toBe('status');
  });

  it('cancels a scheduled meeting with DELETE and keeps it readable', async () => {
    const { body: m } = await create({ title: 'To cancel', scheduled_at: '2027-01-01T09:00:00Z' });
    const res = await t.request('DELETE', `/api/v1/public/meetings/${m.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
    expect((await t.request('GET', `/api/v1/public/meetings/${m.code}`, { key })).body.status).toBe('cancelled');
    expect((await t.request('DELETE', `/api/v1/public/meetings/${m.id}`, { key })).status).toBe(409);
  });

  it('creates webinars with a unique slug', async () => {
    const res = await create({ title: 'Launch', kind: 'webinar', slug: 'launch-2026' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'webinar', slug: 'launch-2026' });
    const taken = await create({ title: 'Launch again', kind: 'webinar', slug: 'launch-2026' });
    expect(taken.status).toBe(409);
    expect(taken.body.param).toBe('slug');
    expect((await create({ title: 'No slug', kind: 'webinar' })).body.param).toBe('slug');
    expect((await create({ title: 'Slug on meeting', slug: 'abc' })).body.param).toBe('slug');
  });

  describe('Idempotency-Key', () => {
    it('returns the same meeting for a retried create and never makes a second one', async () => {
      const before = count();
      const headers = { 'Idempotency-Key': 'retry-me-1' };
      const first = await create({ title: 'Once', duration_minutes: 30 }, headers);
      const second = await create({ duration_minutes: 30, title: 'Once' }, headers);
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(count()).toBe(before + 1);
    });

    it('answers 409 when the key is reused with a different body, creating nothing', async () => {
      const before = count();
      await create({ title: 'A' }, { 'Idempotency-Key': 'reuse-2' });
      const res = await create({ title: 'B' }, { 'Idempotency-Key': 'reuse-2' });
      expect(res.status).toBe(409);
      expect(res.body.param).toBe('Idempotency-Key');
      expect(count()).toBe(before + 1);
    });

    it('forgets a key after 24 hours', async () => {
      const first = await create({ title: 'Old' }, { 'Idempotency-Key': 'aging-3' });
      t.clock.advance(24 * 3600 * 1000 + 1);
      const later = await create({ title: 'Old' }, { 'Idempotency-Key': 'aging-3' });
      expect(later.status).toBe(201);
      expect(later.body.id).not.toBe(first.body.id);
    });

    it('keeps keys per API key', async () => {
      const otherKey = t.key();
      const a = await create({ title: 'Mine' }, { 'Idempotency-Key': 'shared-4' });
      const b = await t.request('POST', '/api/v1/public/meetings', {
        key: otherKey,
        body: { title: 'Mine' },
        headers: { 'Idempotency-Key': 'shared-4' },
      });
      expect(b.status).toBe(201);
      expect(b.body.id).not.toBe(a.body.id);
    });

    it('rejects a malformed key', async () => {
      const res = await create({ title: 'x' }, { 'Idempotency-Key': 'has space' });
      expect(res.status).toBe(400);
      expect(res.body.param).toBe('Idempotency-Key');
    });
  });
});
