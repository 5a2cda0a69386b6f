import { startTestServer, type TestServer } from '../testing/harness';

describe('GET /me', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('names the owner, the organizations the key can act in and the key itself, without its secret', async () => {
    const key = t.key(['meetings:read']);
    const res = await t.request('GET', '/api/v1/public/me', { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: { id: t.owner.id, name: t.owner.name, email: t.owner.email },
      organizations: [{ id: t.org.id, name: t.org.name }],
      key: {
        id: expect.stringMatching(/^key_/),
        name: 'test key',
        scopes: ['meetings:read'],
        organization_id: null,
        expires_at: null,
        created_at: expect.any(String),
      },
    });
    expect(JSON.stringify(res.body)).not.toContain(key.slice(7));
  });

  it('shows only the one organization of a key restricted to it', async () => {
    const other = t.services.identity.createOrganization(t.owner.id, 'Other');
    const res = await t.request('GET', '/api/v1/public/me', { key: t.key([], { org: other.id }) });
    expect(res.body.organizations).toEqual([{ id: other.id, name: 'Other' }]);
    expect(res.body.key.organization_id).toBe(other.id);
  });
});
