import { databaseSnapshot } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

describe('bad input gets a problem+json error and changes nothing', () => {
  let t: TestServer;
  let key: string;
  let meetingId: string;
  let endpointId: string;
  beforeAll(async () => {
    t = await startTestServer();
    key = t.key();
    meetingId = (await t.request('POST', '/api/v1/public/meetings', { key, body: { title: 'Existing' } })).body.id;
    await t.request('POST', '/api/v1/public/meetings', { key, body: { title: 'Webinar', kind: 'webinar', slug: 'bad-input-webinar' } });
    endpointId = (
      await t.request('POST', '/api/v1/public/webhook-endpoints', {
        key,
        body: { url: 'https://hooks.example.com/bad-input', events: ['registration.created'] },
      })
    ).body.id;
  });
  afterAll(() => t.close());

  const snapshot = () => databaseSnapshot(t.services);

  const cases: {
    name: string;
    method: string;
    path: string;
    raw?: string | Buffer;
    body?: unknown;
    headers?: Record<string, string>;
    status: number;
    code: string;
    param?: string;
  }[] = [
    {
      name: 'malformed JSON',
      method: 'POST',
      path: '/meetings',
      raw: '{"title": "x",',
      headers: { 'content-type': 'application/json' },
      status: 400,
      code: 'invalid_json',
      param: 'body',
    },
    {
      name: 'a JSON array body',
      method: 'POST',
      path: '/meetings',
      raw: '[{"title":"x"}]',
      headers: { 'content-type': 'application/json' },
      status: 400,
      code: 'validation_failed',
      param: 'body',
    },
    {
      name: 'a JSON string body',
      method: 'POST',
      path: '/meetings',
      raw: '"title"',
      headers: { 'content-type': 'application/json' },
      status: 400,
      code: 'invalid_json',
      param: 'body',
    },
    {
      name: 'wrong content type',
      method: 'POST',
      path: '/meetings',
      raw: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      status: 415,
      code: 'unsupported_media_type',
      param: 'Content-Type',
    },
    {
      name: 'no content type',
      method: 'POST',
      path: '/meetings',
      raw: '{"title":"x"}',
      headers: { 'content-type': '' },
      status: 415,
      code: 'unsupported_media_type',
      param: 'Content-Type',
    },
    {
      name: 'a body over 1 MB',
      method: 'POST',
      path: '/meetings',
      raw: JSON.stringify({ title: 'x', pad: 'a'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
      status: 413,
      code: 'payload_too_large',
      param: 'body',
    },
    { name: 'a missing title', method: 'POST', path: '/meetings', body: {}, status: 400, code: 'validation_failed', param: 'title' },
    { name: 'no body at all', method: 'POST', path: '/meetings', status: 400, code: 'validation_failed', param: 'title' },
    {
      name: 'an unknown field',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', colour: 'red' },
      status: 400,
      code: 'validation_failed',
      param: 'colour',
    },
    {
      name: 'an unknown nested field',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', settings: { lobby: true } },
      status: 400,
      code: 'validation_failed',
      param: 'settings.lobby',
    },
    {
      name: 'a title of the wrong type',
      method: 'POST',
      path: '/meetings',
      body: { title: 42 },
      status: 400,
      code: 'validation_failed',
      param: 'title',
    },
    {
      name: 'a blank title',
      method: 'POST',
      path: '/meetings',
      body: { title: '   ' },
      status: 400,
      code: 'validation_failed',
      param: 'title',
    },
    {
      name: 'a title over 200 characters',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x'.repeat(201) },
      status: 400,
      code: 'validation_failed',
      param: 'title',
    },
    {
      name: 'a duration of 0',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', duration_minutes: 0 },
      status: 400,
      code: 'validation_failed',
      param: 'duration_minutes',
    },
    {
      name: 'a duration over a day',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', duration_minutes: 1441 },
      status: 400,
      code: 'validation_failed',
      param: 'duration_minutes',
    },
    {
      name: 'a fractional duration',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', duration_minutes: 30.5 },
      status: 400,
      code: 'validation_failed',
      param: 'duration_minutes',
    },
    {
      name: 'a setting that is not a boolean',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', settings: { waiting_room: 'yes' } },
      status: 400,
      code: 'validation_failed',
      param: 'settings.waiting_room',
    },
    {
      name: 'scheduled_at without offset',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', scheduled_at: '2026-12-01T10:00:00' },
      status: 400,
      code: 'validation_failed',
      param: 'scheduled_at',
    },
    {
      name: 'scheduled_at that is no date',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', scheduled_at: 'tomorrow' },
      status: 400,
      code: 'validation_failed',
      param: 'scheduled_at',
    },
    {
      name: 'scheduled_at on a day that does not exist',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', scheduled_at: '2026-02-30T10:00:00Z' },
      status: 400,
      code: 'validation_failed',
      param: 'scheduled_at',
    },
    {
      name: 'an unknown kind',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', kind: 'party' },
      status: 400,
      code: 'validation_failed',
      param: 'kind',
    },
    {
      name: 'a slug with capitals',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', kind: 'webinar', slug: 'Big-Launch' },
      status: 400,
      code: 'validation_failed',
      param: 'slug',
    },
    {
      name: 'an organization the key cannot reach',
      method: 'POST',
      path: '/meetings',
      body: { title: 'x', organization_id: 'org_00000000000000000000000000' },
      status: 400,
      code: 'validation_failed',
      param: 'organization_id',
    },
    { name: 'an empty patch', method: 'PATCH', path: '/meetings/ID', body: {}, status: 400, code: 'validation_failed', param: 'body' },
    {
      name: 'a patch of an unknown field',
      method: 'PATCH',
      path: '/meetings/ID',
      body: { code: 'abc-defg-hij' },
      status: 400,
      code: 'validation_failed',
      param: 'code',
    },
    {
      name: 'a patch ending and renaming at once',
      method: 'PATCH',
      path: '/meetings/ID',
      body: { status: 'ended', title: 'y' },
      status: 400,
      code: 'validation_failed',
      param: 'status',
    },
    {
      name: 'a patch of an unknown meeting',
      method: 'PATCH',
      path: '/meetings/mtg_00000000000000000000000000',
      body: { title: 'y' },
      status: 404,
      code: 'not_found',
    },
    { name: 'a delete of an unknown meeting', method: 'DELETE', path: '/meetings/abc-defg-hij', status: 404, code: 'not_found' },
    { name: 'a limit of 0', method: 'GET', path: '/meetings?limit=0', status: 400, code: 'validation_failed', param: 'limit' },
    { name: 'a limit of 101', method: 'GET', path: '/meetings?limit=101', status: 400, code: 'validation_failed', param: 'limit' },
    {
      name: 'a limit that is no number',
      method: 'GET',
      path: '/meetings?limit=ten',
      status: 400,
      code: 'validation_failed',
      param: 'limit',
    },
    { name: 'a repeated limit', method: 'GET', path: '/meetings?limit=1&limit=2', status: 400, code: 'validation_failed', param: 'limit' },
    { name: 'an invalid cursor', method: 'GET', path: '/meetings?cursor=bm9wZQ', status: 400, code: 'validation_failed', param: 'cursor' },
    { name: 'a cursor of garbage', method: 'GET', path: '/meetings?cursor=%%%', status: 400, code: 'validation_failed', param: 'cursor' },
    {
      name: 'an unknown status filter',
      method: 'GET',
      path: '/meetings?status=done',
      status: 400,
      code: 'validation_failed',
      param: 'status',
    },
    { name: 'an unknown route', method: 'GET', path: '/nothing-here', status: 404, code: 'not_found' },
    {
      name: 'a registration without email',
      method: 'POST',
      path: '/webinars/none/registrations',
      body: { name: 'Ann' },
      status: 400,
      code: 'validation_failed',
      param: 'email',
    },
    {
      name: 'a registration with a bad email',
      method: 'POST',
      path: '/webinars/none/registrations',
      body: { name: 'Ann', email: 'not-an-email' },
      status: 400,
      code: 'validation_failed',
      param: 'email',
    },
    {
      name: 'a webhook endpoint with a private URL',
      method: 'POST',
      path: '/webhook-endpoints',
      body: { url: 'https://10.0.0.1/hook', events: ['meeting.ended'] },
      status: 400,
      code: 'validation_failed',
      param: 'url',
    },
    {
      name: 'a webhook endpoint PATCHed to a private URL',
      method: 'PATCH',
      path: '/webhook-endpoints/WHK',
      body: { url: 'https://[::ffff:127.0.0.1]/hook' },
      status: 400,
      code: 'validation_failed',
      param: 'url',
    },
    {
      name: 'a webhook endpoint PATCHed with an unknown event type',
      method: 'PATCH',
      path: '/webhook-endpoints/WHK',
      body: { events: ['meeting.exploded'] },
      status: 400,
      code: 'validation_failed',
      param: 'events.0',
    },
    {
      name: 'a Teams integration with a private URL',
      method: 'POST',
      path: '/integrations',
      body: { kind: 'teams', webhook_url: 'https://169.254.169.254/x', events: ['meeting.ended'] },
      status: 400,
      code: 'validation_failed',
      param: 'webhook_url',
    },
    {
      name: 'an idempotent create with an invalid body',
      method: 'POST',
      path: '/meetings',
      body: { title: '' },
      headers: { 'Idempotency-Key': 'bad-input-1' },
      status: 400,
      code: 'validation_failed',
      param: 'title',
    },
    {
      name: 'an idempotent registration with an invalid email',
      method: 'POST',
      path: '/webinars/bad-input-webinar/registrations',
      body: { name: 'Ann', email: 'not-an-email' },
      headers: { 'Idempotency-Key': 'bad-input-2' },
      status: 400,
      code: 'validation_failed',
      param: 'email',
    },
    {
      name: 'a redelivery of an unknown delivery',
      method: 'POST',
      path: '/deliveries/dlv_nope/redeliver',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a registration for an unknown webinar',
      method: 'POST',
      path: '/webinars/none/registrations',
      body: { name: 'Ann', email: 'ann@example.com' },
      status: 404,
      code: 'not_found',
    },
  ];

  it.each(cases)('$name -> $status $code', async (c) => {
    const before = snapshot();
    const res = await t.request(c.method, `/api/v1/public${c.path.replace('/ID', `/${meetingId}`).replace('/WHK', `/${endpointId}`)}`, {
      key,
      body: c.body,
      raw: c.raw,
      headers: c.headers,
    });
    expect(res.status).toBe(c.status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: c.status, code: c.code, type: `urn:svc:error:${c.code}` });
    expect(typeof res.body.title).toBe('string');
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    if (c.param) expect(res.body.param).toBe(c.param);
    expect(snapshot()).toBe(before);
  });

  it('lists every invalid field, not just the first', async () => {
    const res = await t.request('POST', '/api/v1/public/meetings', { key, body: { title: '', duration_minutes: -1, extra: 1 } });
    expect(res.body.errors.map((e: { param: string }) => e.param).sort()).toEqual(['duration_minutes', 'extra', 'title']);
  });

  it('answers 401 alike for missing, malformed, unknown, expired and revoked keys', async () => {
    const expired = t.key(undefined, { expiresAt: new Date(t.clock.now() + 1000).toISOString() });
    const revoked = t.key();
    t.clock.advance(1001);
    const revokedId = t.services.keys.list().at(-1)!.id;
    t.services.keys.revoke(revokedId);
    const unknown = 'svc_sk_' + 'a'.repeat(52);
    const answers = [];
    for (const authorization of [
      undefined,
      'Bearer',
      'Basic abc',
      'Bearer svc_sk_short',
      `Bearer ${unknown}`,
      `Bearer ${expired}`,
      `Bearer ${revoked}`,
      `Token ${key}`,
    ]) {
      const res = await t.request('GET', '/api/v1/public/me', { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
      answers.push({ code: res.body.code, detail: res.body.detail, title: res.body.title });
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]!.code).toBe('unauthorized');
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const kept = await t.request('GET', `/api/v1/public/meetings/${meetingId}`, { key, headers: { 'X-Request-Id': 'trace-me-123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-me-123');
    const replaced = await t.request('GET', `/api/v1/public/meetings/${meetingId}`, {
      key,
      headers: { 'X-Request-Id': 'bad id <script>' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('answers an internal failure with a 500 problem that shows no SQL, stack or secret', async () => {
    t.services.db.exec('ALTER TABLE participants RENAME TO participants_gone');
    try {
      const res = await t.request('GET', `/api/v1/public/meetings/${meetingId}/participants`, { key });
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('internal_error');
      expect(JSON.stringify(res.body)).not.toMatch(/participants|SQLITE|at .*\.ts|svc_sk_/);
    } finally {
      t.services.db.exec('ALTER TABLE participants_gone RENAME TO participants');
    }
  });
});
