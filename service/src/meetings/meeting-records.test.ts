import { seedMeeting, seedParticipant, seedRecording, seedSummary, seedTranscript } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

describe('participants, recordings, transcripts, summaries and registrations', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_BASE_URL: 'https://meet.example.com' });
    key = t.key();
  });
  afterAll(() => t.close());
  const get = (path: string) => t.request('GET', `/api/v1/public${path}`, { key });

  it('lists participants newest first, paginated, empty before anyone joined', async () => {
    const m = seedMeeting(t);
    expect((await get(`/meetings/${m.code}/participants`)).body).toEqual({ data: [], has_more: false, next_cursor: null });
    const host = seedParticipant(t, m.id, { name: 'Host', role: 'host', identity: 'host-1' });
    t.clock.advance(10);
    const guest = seedParticipant(t, m.id, { name: 'Guest' }, { leftAfterMs: 5000 });
    const first = await get(`/meetings/${m.code}/participants?limit=1`);
    expect(first.body.data).toEqual([guest]);
    expect(first.body.has_more).toBe(true);
    const second = await get(`/meetings/${m.code}/participants?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body).toEqual({ data: [host], has_more: false, next_cursor: null });
    expect(Object.keys(host).sort()).toEqual(['id', 'identity', 'joined_at', 'left_at', 'meeting_id', 'name', 'role']);
  });

  it('lists recordings as {data: [...]} with a download URL once ready, and serves the file', async () => {
    const m = seedMeeting(t);
    expect((await get(`/meetings/${m.code}/recordings`)).body.data).toEqual([]);
    const ready = seedRecording(t, m.id, 'the-video-bytes');
    t.clock.advance(10);
    const processing = seedRecording(t, m.id, 'partial', { ready: false });
    const res = await get(`/meetings/${m.code}/recordings`);
    expect(res.body.data).toEqual([
      expect.objectContaining({ id: processing.id, status: 'processing', download_url: null }),
      {
        id: ready.id,
        meeting_id: m.id,
        kind: 'video',
        status: 'ready',
        duration_seconds: 125,
        size_bytes: 15,
        content_type: 'video/webm',
        download_url: `https://meet.example.com/api/v1/public/recordings/${ready.id}/download`,
        created_at: ready.created_at,
        ready_at: ready.ready_at,
      },
    ]);
    const file = await get(`/recordings/${ready.id}/download`);
    expect(file.status).toBe(200);
    expect(file.body).toBe('the-video-bytes');
    expect(file.headers.get('content-type')).toBe('video/webm');
    expect(file.headers.get('content-disposition')).toContain(`${ready.id}.webm`);
    expect((await get(`/recordings/${processing.id}/download`)).status).toBe(404);
    expect((await get('/recordings/rec_00000000000000000000000000/download')).status).toBe(404);
  });

  it('returns 404 for a transcript and a summary until they exist, then their records', async () => {
    const m = seedMeeting(t);
    for (const what of ['transcript', 'summary']) {
      const res = await get(`/meetings/${m.id}/${what}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    const transcript = seedTranscript(t.services, m.id);
    const summary = seedSummary(t.services, m.id);
    expect((await get(`/meetings/${m.code}/transcript`)).body).toEqual(transcript);
    expect((await get(`/meetings/${m.code}/summary`)).body).toEqual(summary);
  });

  describe('webinar registrations', () => {
    const register = (slug: string, body: unknown, headers?: Record<string, string>) =>
      t.request('POST', `/api/v1/public/webinars/${slug}/registrations`, { key, body, headers });

    it('registers with 201, and the same email again gives 200 with the same registration', async () => {
      const webinar = seedMeeting(t, { kind: 'webinar', slug: 'q4-launch', title: 'Q4 launch' });
      const res = await register('q4-launch', { email: 'Ann@Example.com', name: ' Ann Lee ' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^reg_[0-9a-z]{26}$/),
        webinar: { slug: 'q4-launch', title: 'Q4 launch', meeting_id: webinar.id },
        email: 'Ann@Example.com',
        name: 'Ann Lee',
        join_url: `https://meet.example.com/m/${webinar.code}?registration=${res.body.id}`,
        created_at: expect.any(String),
      });
      const again = await register('q4-launch', { email: 'ann@example.com', name: 'Someone else' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
      expect(t.services.db.prepare('SELECT count(*) FROM registrations WHERE meeting_id = ?').pluck().get(webinar.id)).toBe(1);
    });

    it('404s for an unknown slug and for a plain meeting, 409 for a cancelled webinar', async () => {
      const gone = seedMeeting(t, { kind: 'webinar', slug: 'gone-webinar' });
      expect((await register('no-such-webinar', { email: 'a@b.co', name: 'A' })).status).toBe(404);
      const plain = seedMeeting(t);
      expect((await register(plain.code, { email: 'a@b.co', name: 'A' })).status).toBe(404);
      expect((await t.request('DELETE', `/api/v1/public/meetings/${gone.id}`, { key })).status).toBe(200);
      const res = await register('gone-webinar', { email: 'a@b.co', name: 'A' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('conflict');
    });

    it('replays a retried registration with the same Idempotency-Key', async () => {
      seedMeeting(t, { kind: 'webinar', slug: 'retry-webinar' });
      const headers = { 'Idempotency-Key': 'reg-retry' };
      const first = await register('retry-webinar', { email: 'bo@example.com', name: 'Bo' }, headers);
      const second = await register('retry-webinar', { email: 'bo@example.com', name: 'Bo' }, headers);
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.body).toEqual(first.body);
    });
  });
});
