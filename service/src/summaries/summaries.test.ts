import { seedMeeting, seedSummary } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

describe('summaries API', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_BASE_URL: 'https://meet.example.com' });
    key = t.key();
  });
  afterAll(() => t.close());
  const get = (path: string) => t.request('GET', `/api/v1/public${path}`, { key });

  it('returns 404 for a summary until it exists, then its record', async () => {
    const m = seedMeeting(t);
    const missing = await get(`/meetings/${m.id}/summary`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    const summary = seedSummary(t.services, m.id);
    expect((await get(`/meetings/${m.code}/summary`)).body).toEqual(summary);
  });
});
