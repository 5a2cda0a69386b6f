import { seedMeeting } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

describe('Idempotency-Key fingerprints the whole request', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer();
    key = t.key();
    seedMeeting(t, { kind: 'webinar', slug: 'first-webinar' });
    seedMeeting(t, { kind: 'webinar', slug: 'second-webinar' });
  });
  afterAll(() => t.close());

  const register = (slug: string, idempotencyKey: string) =>
    t.request('POST', `/api/v1/public/webinars/${slug}/registrations`, {
      key,
      body: { email: 'same@example.com', name: 'Same' },
      headers: { 'Idempotency-Key': idempotencyKey },
    });

  it('refuses the same key and body on another path (another webinar) with 409, registering nobody there', async () => {
    const first = await register('first-webinar', 'path-matters');
    expect(first.status).toBe(201);
    const replay = await register('first-webinar', 'path-matters');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const other = await register('second-webinar', 'path-matters');
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
    const second = t.services.db.prepare("SELECT id FROM meetings WHERE slug = 'second-webinar'").pluck().get();
    expect(t.services.db.prepare('SELECT count(*) FROM registrations WHERE meeting_id = ?').pluck().get(second)).toBe(0);
  });
});
