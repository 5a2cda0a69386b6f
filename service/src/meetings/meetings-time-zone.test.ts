import { startTestServer, type TestServer } from '../testing/harness';

describe('meetings API: the time zone a meeting is planned in', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer();
    key = t.key();
  });
  afterAll(() => t.close());

  const count = () => (t.services.db.prepare('SELECT count(*) AS n FROM meetings').get() as { n: number }).n;

  it('stores the IANA zone in its canonical spelling and returns it on read; without one it is null', async () => {
    const res = await t.request('POST', '/api/v1/public/meetings', {
      key,
      body: { title: 'Tokyo sync', scheduled_at: '2027-01-15T10:30:00+09:00', time_zone: 'asia/tokyo' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ scheduled_at: '2027-01-15T10:30:00+09:00', time_zone: 'Asia/Tokyo' });
    expect((await t.request('GET', `/api/v1/public/meetings/${res.body.id}`, { key })).body.time_zone).toBe('Asia/Tokyo');
    const plain = await t.request('POST', '/api/v1/public/meetings', { key, body: { title: 'No zone' } });
    expect(plain.body.time_zone).toBeNull();
  });

  it.each(['Mars/Olympus', '+09:00', 'JST9', ''])('refuses %p as time_zone with a 400 naming the field, creating nothing', async (zone) => {
    const before = count();
    const res = await t.request('POST', '/api/v1/public/meetings', { key, body: { title: 'Bad zone', time_zone: zone } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ param: 'time_zone' })]);
    expect(count()).toBe(before);
  });

  it('changes or removes the zone with PATCH, leaving scheduled_at as it was', async () => {
    const created = await t.request('POST', '/api/v1/public/meetings', {
      key,
      body: { title: 'Moves', scheduled_at: '2027-02-01T09:00:00+01:00', time_zone: 'Europe/Paris' },
    });
    const id = created.body.id as string;
    const moved = await t.request('PATCH', `/api/v1/public/meetings/${id}`, { key, body: { time_zone: 'America/New_York' } });
    expect(moved.body).toMatchObject({ time_zone: 'America/New_York', scheduled_at: '2027-02-01T09:00:00+01:00' });
    const bad = await t.request('PATCH', `/api/v1/public/meetings/${id}`, { key, body: { time_zone: 'Nowhere/Land' } });
    expect(bad.status).toBe(400);
    const removed = await t.request('PATCH', `/api/v1/public/meetings/${id}`, { key, body: { time_zone: null } });
    expect(removed.body.time_zone).toBeNull();
  });

  it('documents time_zone in the OpenAPI document (create, update and the resource)', async () => {
    const doc = (await t.request('GET', '/api/v1/public/openapi.json')).body;
    expect(doc.components.schemas.Meeting.properties.time_zone.type).toEqual(['string', 'null']);
    expect(doc.components.schemas.Meeting.required).toContain('time_zone');
    expect(doc.components.schemas.CreateMeeting.properties.time_zone.description).toMatch(/IANA/);
    expect(doc.components.schemas.UpdateMeeting.properties.time_zone.type).toEqual(['string', 'null']);
  });
});
