import { startTestServer, type TestServer } from '../testing/harness';

describe('webinar slugs are unique per organization', () => {
  let t: TestServer;
  let otherOrg: string;
  let keyA: string;
  let keyB: string;
  let keyBoth: string;
  beforeAll(async () => {
    t = await startTestServer();
    otherOrg = t.services.identity.createOrganization(t.owner.id, 'Other org').id;
    keyA = t.key(['meetings:read', 'meetings:write', 'webinars:write'], { org: t.org.id });
    keyB = t.key(['meetings:read', 'meetings:write', 'webinars:write'], { org: otherOrg });
    keyBoth = t.key(['meetings:read', 'meetings:write', 'webinars:write']);
  });
  afterAll(() => t.close());

  const createWebinar = (key: string, slug: string) =>
    t.request('POST', '/api/v1/public/meetings', { key, body: { title: `Webinar ${slug}`, kind: 'webinar', slug } });
  const register = (key: string, slug: string, email: string) =>
    t.request('POST', `/api/v1/public/webinars/${slug}/registrations`, { key, body: { email, name: 'Ann' } });
  const tables = () =>
    JSON.stringify(
      ['meetings', 'registrations', 'events'].map((table) => t.services.db.prepare(`SELECT * FROM ${table} ORDER BY id`).all()),
    );

  it("lets two organizations use the same slug, each reaching only its own webinar; another organization's slug says nothing", async () => {
    const a = await createWebinar(keyA, 'q4-launch');
    expect(a.status).toBe(201);
    const b = await createWebinar(keyB, 'q4-launch');
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);

    const regA = await register(keyA, 'q4-launch', 'ann@example.com');
    expect(regA.status).toBe(201);
    expect(regA.body.webinar.meeting_id).toBe(a.body.id);
    const regB = await register(keyB, 'q4-launch', 'ann@example.com');
    expect(regB.status).toBe(201);
    expect(regB.body.webinar.meeting_id).toBe(b.body.id);
  });

  it('still refuses a slug taken in the same organization', async () => {
    const again = await createWebinar(keyA, 'q4-launch');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict', param: 'slug' });
  });

  it('answers a key spanning several organizations that share the slug with a clear 409, and changes nothing', async () => {
    const before = tables();
    const res = await register(keyBoth, 'q4-launch', 'bob@example.com');
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'conflict', param: 'slug' });
    expect(res.body.detail).toContain(t.org.id);
    expect(res.body.detail).toContain(otherOrg);
    expect(res.body.detail).toMatch(/restricted to one organization/);
    expect(tables()).toBe(before);
  });

  it('lets the spanning key use a slug only one of its organizations has', async () => {
    expect((await createWebinar(keyB, 'b-only')).status).toBe(201);
    expect((await register(keyBoth, 'b-only', 'cy@example.com')).status).toBe(201);
  });
});
