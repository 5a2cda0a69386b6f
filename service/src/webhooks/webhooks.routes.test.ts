import { SCOPES } from '../keys/scopes';
import { seedMeeting } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';
import { startReceiver } from '../testing/receiver';

describe('webhook endpoints API', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });
    key = t.key();
  });
  afterAll(() => t.close());
  const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, `/api/v1/public${path}`, { key: k, body });

  it('creates an endpoint and shows its secret once, storing it only encrypted', async () => {
    const res = await api('POST', '/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hook',
      events: ['meeting.ended', 'registration.created'],
      description: 'CRM',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^whk_/),
      url: 'http://127.0.0.1:9/hook',
      events: ['meeting.ended', 'registration.created'],
      description: 'CRM',
      enabled: true,
      disabled_reason: null,
      organization_id: t.org.id,
      previous_secret_expires_at: null,
    });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const again = await api('GET', `/webhook-endpoints/${res.body.id}`);
    expect(again.body.secret).toBeUndefined();
    expect((await api('GET', '/webhook-endpoints')).body.data.every((e: { secret?: string }) => e.secret === undefined)).toBe(true);
    const stored = JSON.stringify(t.services.db.prepare('SELECT * FROM webhook_endpoints').all());
    expect(stored).not.toContain(res.body.secret.slice(6));
  });

  it('updates url, events and description, disables and re-enables', async () => {
    const { body: ep } = await api('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/a', events: ['meeting.ended'] });
    const changed = await api('PATCH', `/webhook-endpoints/${ep.id}`, {
      url: 'http://127.0.0.1:9/b',
      events: ['meeting.started'],
      description: 'New',
    });
    expect(changed.body).toMatchObject({ url: 'http://127.0.0.1:9/b', events: ['meeting.started'], description: 'New' });
    expect((await api('PATCH', `/webhook-endpoints/${ep.id}`, { enabled: false })).body).toMatchObject({
      enabled: false,
      disabled_reason: 'disabled through the API',
    });
    expect((await api('PATCH', `/webhook-endpoints/${ep.id}`, { enabled: true })).body).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });
  });

  it('sends custom headers with every delivery, stores their values only encrypted and returns their names only', async () => {
    const receiver = await startReceiver();
    const worker = t.deliveryWorker({ random: () => 0.5 });
    try {
      const value = 'make-api-key-5f1e0c2b9d';
      const res = await api('POST', '/webhook-endpoints', {
        url: receiver.url,
        events: ['meeting.started'],
        headers: { 'X-Make-ApiKey': value, Authorization: 'Bearer token-for-n8n-4d1a' },
      });
      expect(res.status).toBe(201);
      expect(res.body.headers).toEqual(['x-make-apikey', 'authorization']);
      const shown = JSON.stringify([
        res.body,
        (await api('GET', `/webhook-endpoints/${res.body.id}`)).body,
        (await api('GET', '/webhook-endpoints')).body,
        t.services.db.prepare('SELECT * FROM webhook_endpoints').all(),
      ]);
      expect(shown).not.toContain(value);
      expect(shown).not.toContain('token-for-n8n-4d1a');
      t.services.meetings.start(seedMeeting(t));
      await worker.runOnce();
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]!.headers).toMatchObject({
        'x-make-apikey': value,
        authorization: 'Bearer token-for-n8n-4d1a',
        'content-type': 'application/json',
        'x-svc-signature': expect.stringMatching(/^sha256=/),
      });
      const cleared = await api('PATCH', `/webhook-endpoints/${res.body.id}`, { headers: {} });
      expect(cleared.body.headers).toEqual([]);
      const replaced = await api('PATCH', `/webhook-endpoints/${res.body.id}`, { headers: { 'x-other': 'v2' } });
      expect(replaced.body.headers).toEqual(['x-other']);
      t.services.meetings.start(seedMeeting(t));
      await worker.runOnce();
      expect(receiver.requests[1]!.headers['x-other']).toBe('v2');
      expect(receiver.requests[1]!.headers['x-make-apikey']).toBeUndefined();
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it.each([
    [{ 'Content-Type': 'text/plain' }, 'headers.Content-Type'],
    [{ connection: 'close' }, 'headers.connection'],
    [{ 'X-Svc-Signature': 'sha256=forged' }, 'headers.X-Svc-Signature'],
    [{ 'webhook-signature': 'v1,forged' }, 'headers.webhook-signature'],
    [{ 'bad name': 'x' }, 'headers.bad name'],
    [{ 'x-key': 'line\r\nInjected: yes' }, 'headers.x-key'],
    [{ 'x-key': 'a', 'X-KEY': 'b' }, 'headers.X-KEY'],
  ])('refuses the custom headers %j naming %s, and stores nothing', async (headers, param) => {
    const before = t.services.db.prepare('SELECT count(*) FROM webhook_endpoints').pluck().get();
    const res = await api('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/h', events: ['meeting.ended'], headers });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ param }] });
    expect(t.services.db.prepare('SELECT count(*) FROM webhook_endpoints').pluck().get()).toBe(before);
  });

  it('rotates the secret with a 24 h overlap', async () => {
    const { body: ep } = await api('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/r', events: ['meeting.ended'] });
    const rotated = await api('POST', `/webhook-endpoints/${ep.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    expect(rotated.body.previous_secret_expires_at).toBe(new Date(t.clock.now() + 24 * 3600_000).toISOString());
    t.clock.advance(24 * 3600_000);
    expect((await api('GET', `/webhook-endpoints/${ep.id}`)).body.previous_secret_expires_at).toBeNull();
  });

  it('deletes an endpoint with its deliveries', async () => {
    const { body: ep } = await api('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/d', events: ['meeting.started'] });
    t.services.meetings.start(seedMeeting(t));
    expect(t.services.db.prepare('SELECT count(*) FROM deliveries WHERE destination_id = ?').pluck().get(ep.id)).toBe(1);
    expect((await api('DELETE', `/webhook-endpoints/${ep.id}`)).status).toBe(204);
    expect((await api('GET', `/webhook-endpoints/${ep.id}`)).status).toBe(404);
    expect(t.services.db.prepare('SELECT count(*) FROM deliveries WHERE destination_id = ?').pluck().get(ep.id)).toBe(0);
  });

  it.each([
    [{ url: 'not a url', events: ['meeting.ended'] }, 'url'],
    [{ url: 'ftp://example.com/x', events: ['meeting.ended'] }, 'url'],
    [{ url: 'https://example.com/x', events: [] }, 'events'],
    [{ url: 'https://example.com/x', events: ['meeting.exploded'] }, 'events.0'],
    [{ url: 'https://example.com/x', events: ['meeting.ended', 'meeting.ended'] }, 'events'],
    [{ url: 'https://example.com/x' }, 'events'],
    [{ url: 'https://example.com/x', events: ['meeting.ended'], secret: 'mine' }, 'secret'],
  ])('rejects %j (param %s) and stores nothing', async (body, param) => {
    const before = t.services.db.prepare('SELECT count(*) FROM webhook_endpoints').pluck().get();
    const res = await api('POST', '/webhook-endpoints', body);
    expect(res.status).toBe(400);
    expect(res.body.param).toBe(param);
    expect(t.services.db.prepare('SELECT count(*) FROM webhook_endpoints').pluck().get()).toBe(before);
  });

  it('needs the scope that reads each subscribed event type', async () => {
    const limited = t.key(['webhooks:write', 'meetings:read']);
    expect((await api('POST', '/webhook-endpoints', { url: 'https://example.com/x', events: ['meeting.ended'] }, limited)).status).toBe(
      201,
    );
    const res = await api('POST', '/webhook-endpoints', { url: 'https://example.com/x', events: ['recording.ready'] }, limited);
    expect(res.status).toBe(403);
    expect(res.body.required_scope).toBe('recordings:read');
    expect((await api('GET', '/webhook-endpoints', undefined, t.key(['meetings:read']))).body.required_scope).toBe('webhooks:write');
  });

  it('needs the scope that reads each type on PATCH events too, and changes nothing when refused', async () => {
    const limited = t.key(['webhooks:write', 'meetings:read']);
    const created = await api('POST', '/webhook-endpoints', { url: 'https://example.com/x', events: ['meeting.ended'] }, limited);
    const before = JSON.stringify(t.services.db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?').get(created.body.id));
    const res = await api('PATCH', `/webhook-endpoints/${created.body.id}`, { events: ['meeting.ended', 'transcript.ready'] }, limited);
    expect(res.status).toBe(403);
    expect(res.body.required_scope).toBe('transcripts:read');
    expect(JSON.stringify(t.services.db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?').get(created.body.id))).toBe(before);
  });

  it('keeps endpoints of other organizations out of reach', async () => {
    const other = t.services.identity.createOrganization(t.owner.id, 'Other');
    const { body: foreign } = await api('POST', '/webhook-endpoints', {
      url: 'https://example.com/x',
      events: ['meeting.ended'],
      organization_id: other.id,
    });
    const restricted = t.key(SCOPES, { org: t.org.id });
    for (const [method, path] of <[string, string][]>[
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
      ['GET', '/deliveries'],
    ]) {
      const res = await api(
        method,
        `/webhook-endpoints/${foreign.id}${path}`,
        method === 'PATCH' ? { description: 'x' } : undefined,
        restricted,
      );
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect(
      (await api('GET', '/webhook-endpoints?limit=100', undefined, restricted)).body.data.map((e: { id: string }) => e.id),
    ).not.toContain(foreign.id);
  });
});

describe('webhook URL policy without SVC_ALLOW_INSECURE_WEBHOOKS', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it.each([
    'http://example.com/hook',
    'https://localhost/hook',
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://192.168.0.5/hook',
    'https://[::1]/hook',
    'https://169.254.169.254/latest',
    'https://api.localhost/x',
    'https://[::ffff:127.0.0.1]:22/',
    'https://[::ffff:7f00:1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:7f00:1::]/',
  ])('refuses %s', async (url) => {
    const res = await t.request('POST', '/api/v1/public/webhook-endpoints', { key: t.key(), body: { url, events: ['meeting.ended'] } });
    expect(res.status).toBe(400);
    expect(res.body.param).toBe('url');
  });

  it('accepts a public https URL', async () => {
    const res = await t.request('POST', '/api/v1/public/webhook-endpoints', {
      key: t.key(),
      body: { url: 'https://hooks.example.com/svc', events: ['meeting.ended'] },
    });
    expect(res.status).toBe(201);
  });

  it('refuses an IPv4-mapped loopback URL on PATCH and for a Teams workflow too', async () => {
    const key = t.key();
    const created = await t.request('POST', '/api/v1/public/webhook-endpoints', {
      key,
      body: { url: 'https://hooks.example.com/svc', events: ['meeting.ended'] },
    });
    const patched = await t.request('PATCH', `/api/v1/public/webhook-endpoints/${created.body.id}`, {
      key,
      body: { url: 'https://[::ffff:127.0.0.1]:22/' },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.param).toBe('url');
    const teams = await t.request('POST', '/api/v1/public/integrations', {
      key,
      body: { kind: 'teams', webhook_url: 'https://[::ffff:127.0.0.1]:22/', events: ['meeting.ended'] },
    });
    expect(teams.status).toBe(400);
    expect(teams.body.param).toBe('webhook_url');
  });
});
