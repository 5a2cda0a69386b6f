import { seedMeeting } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

describe('webinar registrations API', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_BASE_URL: 'https://meet.example.com' });
    key = t.key();
  });
  afterAll(() => t.close());
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
      join_url: expect.stringMatching(new RegExp(`^https://meet\\.example\\.com/m/${webinar.code}\\?invite=[\\w-]+\\.[\\w-]+$`)),
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

  it('finds a registration by email, case-insensitively, and lists all of them newest first', async () => {
    seedMeeting(t, { kind: 'webinar', slug: 'find-webinar' });
    const ann = (await register('find-webinar', { email: 'Ann@Example.com', name: 'Ann' })).body;
    const bo = (await register('find-webinar', { email: 'bo@example.com', name: 'Bo' })).body;
    const find = (query: string) => t.request('GET', `/api/v1/public/webinars/find-webinar/registrations${query}`, { key });
    expect((await find('?email=ANN%40example.com')).body).toEqual({ data: [ann], has_more: false, next_cursor: null });
    expect((await find('?email=nobody%40example.com')).body).toEqual({ data: [], has_more: false, next_cursor: null });
    expect((await find('')).body.data).toEqual([bo, ann]);
    const first = await find('?limit=1');
    expect(first.body).toMatchObject({ data: [bo], has_more: true });
    expect((await find(`?limit=1&cursor=${first.body.next_cursor}`)).body.data).toEqual([ann]);
    expect((await find('?email=not-an-email')).status).toBe(400);
    expect((await t.request('GET', '/api/v1/public/webinars/no-such-webinar/registrations?email=a%40b.co', { key })).status).toBe(404);
  });
});
