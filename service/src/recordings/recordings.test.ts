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
});
