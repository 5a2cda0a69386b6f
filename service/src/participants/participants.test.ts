import { seedMeeting, seedParticipant } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

describe('participants API', () => {
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
});
