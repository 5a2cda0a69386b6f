import { seedMeeting, seedRecording } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

describe('recordings API', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_BASE_URL: 'https://meet.example.com' });
    key = t.key();
  });
  afterAll(() => t.close());
  const get = (path: string) => t.request('GET', `/api/v1/public${path}`, { key });

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
        download_url: expect.stringMatching(
          new RegExp(`^https://meet\\.example\\.com/api/v1/public/recordings/${ready.id}/download\\?token=[\\w-]+\\.[\\w-]+$`),
        ),
        created_at: ready.created_at,
        ready_at: ready.ready_at,
        failure_reason: null,
        source_recording_id: null,
        breakout_room_id: null,
        tracks: null,
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

  it('serves a ready recording through its signed URL without a key, with ranges, until the URL expires', async () => {
    const m = seedMeeting(t);
    const recording = seedRecording(t, m.id, 'abcdefghij');
    const other = seedRecording(t, m.id, 'other');
    const listed = (await get(`/meetings/${m.id}/recordings`)).body.data.find((r: { id: string }) => r.id === recording.id);
    const local = (url: string) => url.replace('https://meet.example.com', '');
    const anonymous = (url: string, headers: Record<string, string> = {}) => t.request('GET', local(url), { headers });

    const whole = await anonymous(listed.download_url);
    expect(whole.status).toBe(200);
    expect(whole.body).toBe('abcdefghij');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const part = await anonymous(listed.download_url, { range: 'bytes=2-5' });
    expect(part.status).toBe(206);
    expect(part.body).toBe('cdef');
    expect(part.headers.get('content-range')).toBe('bytes 2-5/10');

    const token = new URL(listed.download_url).searchParams.get('token')!;
    const [payload, signature] = token.split('.');
    const tampered = listed.download_url.replace(token, `${payload}.${signature!.slice(0, -2)}AA`);
    expect((await anonymous(tampered)).status).toBe(401);
    const forOther = `/api/v1/public/recordings/${other.id}/download?token=${token}`;
    expect((await anonymous(forOther)).status).toBe(401);
    expect((await anonymous(`/api/v1/public/recordings/${recording.id}/download`)).status).toBe(401);

    t.clock.advance(24 * 3600 * 1000 + 1000);
    const expired = await anonymous(listed.download_url);
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('unauthorized');
  });

  it.each(['bytes=999999999-', 'bytes=5-1', 'bytes=-0'])('answers %s with 416, Content-Range bytes */size and a problem', async (range) => {
    const recording = seedRecording(t, seedMeeting(t).id, 'abcdefghij');
    const res = await t.request('GET', `/api/v1/public/recordings/${recording.id}/download`, { key, headers: { range } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe('bytes */10');
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 416, code: 'range_not_satisfiable', param: 'Range' });
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js)/);
    const valid = await t.request('GET', `/api/v1/public/recordings/${recording.id}/download`, { key, headers: { range: 'bytes=7-' } });
    expect([valid.status, valid.body, valid.headers.get('content-range')]).toEqual([206, 'hij', 'bytes 7-9/10']);
  });
});
