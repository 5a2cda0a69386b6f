import { slackMessageFor, teamsMessageFor, type WebhookEvent } from '@svc/connectors';
import { startTestServer, type TestServer } from '../testing/harness';

const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';

describe('text that is not text is refused', () => {
  let t: TestServer;
  let key: string;
  let webinarSlug: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });
    key = t.key();
    webinarSlug = (
      await t.request('POST', '/api/v1/public/meetings', { key, body: { title: 'Launch', kind: 'webinar', slug: 'text-launch' } })
    ).body.slug;
  });
  afterAll(() => t.close());

  const tables = () =>
    JSON.stringify(
      ['meetings', 'registrations', 'webhook_endpoints', 'events'].map((table) =>
        t.services.db.prepare(`SELECT * FROM ${table} ORDER BY id`).all(),
      ),
    );

  // Raw JSON: JSON.stringify writes a lone surrogate as the escape \ud800, which is how a client sends one.
  const post = (path: string, json: string) =>
    t.request('POST', `/api/v1/public${path}`, { key, raw: json, headers: { 'content-type': 'application/json' } });
  const title = (value: string) => JSON.stringify({ title: value });

  it.each([
    ['a lone high surrogate', `x${LONE_HIGH}y`],
    ['a lone low surrogate', `${LONE_LOW}title`],
    ['200 lone surrogates', LONE_HIGH.repeat(200)],
    ['a reversed pair', `${LONE_LOW}${LONE_HIGH}`],
    ['NUL', 'Design\u0000review'],
    ['only NUL', '\u0000'],
    ['a bell', 'Design\u0007'],
    ['an escape sequence', '\u001b[31mred'],
    ['a newline', 'Design\nreview'],
    ['a carriage return', 'Design\rreview'],
    ['a tab', 'Design\treview'],
    ['DEL', 'Design\u007f'],
    ['a C1 control (NEL)', 'Design\u0085review'],
    ['a line separator', 'Design\u2028review'],
    ['a right-to-left override', 'Invoice \u202egpj.exe'],
    ['a left-to-right embedding', '\u202aDesign'],
    ['a right-to-left isolate', 'Design\u2067x\u2069'],
    ['only ideographic spaces', '\u3000\u3000'],
  ])('a title with %s', async (_what, value) => {
    const before = tables();
    const res = await post('/meetings', title(value));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'title' });
    expect(tables()).toBe(before);
  });

  it('refuses the same in a registration name, a webhook description and a PATCHed title', async () => {
    const before = tables();
    const registration = await post(`/webinars/${webinarSlug}/registrations`, `{"email": "a@example.com", "name": "Ann\\u0000"}`);
    expect(registration.body).toMatchObject({ code: 'validation_failed', param: 'name' });
    const hook = await post(
      '/webhook-endpoints',
      `{"url": "http://127.0.0.1:9/x", "events": ["meeting.ended"], "description": "x\\ud800"}`,
    );
    expect(hook.body).toMatchObject({ code: 'validation_failed', param: 'description' });
    const meeting = (await post('/meetings', '{"title": "Fine"}')).body;
    const afterCreate = tables();
    const patched = await t.request('PATCH', `/api/v1/public/meetings/${meeting.id}`, { key, body: { title: 'Evil \u202e' } });
    expect(patched.body).toMatchObject({ code: 'validation_failed', param: 'title' });
    expect(tables()).toBe(afterCreate);
    expect(before).not.toBe(afterCreate);
  });

  it('accepts real text: emoji (surrogate pairs), right-to-left scripts, combining marks; reads it back exactly', async () => {
    const text = 'Réunion 👩‍💻 اجتماع שלום e\u0301';
    const res = await post('/meetings', title(text));
    expect(res.status).toBe(201);
    expect((await t.request('GET', `/api/v1/public/meetings/${res.body.id}`, { key })).body.title).toBe(text);
    const hook = await post(
      '/webhook-endpoints',
      `{"url": "http://127.0.0.1:9/x", "events": ["meeting.ended"], "description": "line one\\nline two"}`,
    );
    expect(hook.status).toBe(201);
  });

  it.each([
    '2026-12-01\n10:00:00Z',
    '2026-12-01 10:00:00Z',
    '2026-12-01\u300010:00:00Z',
    '2026-12-01\t10:00:00Z',
    '2026-12-01T10:00:00+0200',
    '2026-12-01T10:00:00+02',
    '2026-12-01T10:00:00',
    '2026-12-01T10:00Z',
    '2026-02-30T10:00:00Z',
    '2026-13-01T10:00:00Z',
    '2026-12-01T24:00:00Z',
    '2026-12-01T10:60:00Z',
    '2026-12-01T10:00:00+24:00',
    '+002026-12-01T10:00:00Z',
    '2026-12-01T10:00:00.Z',
    '２０２６-12-01T10:00:00Z',
    ' 2026-12-01T10:00:00Z',
  ])('refuses the date-time %j', async (value) => {
    const before = tables();
    const res = await t.request('POST', '/api/v1/public/meetings', { key, body: { title: 'Dated', scheduled_at: value } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'scheduled_at' });
    expect(tables()).toBe(before);
  });

  it.each(['2026-12-01T10:00:00+02:00', '2026-12-01T10:00:00Z', '2026-12-01T10:00:00.123456-05:30', '2028-02-29T23:59:59+14:00'])(
    'accepts the RFC 3339 date-time %s and returns it as sent',
    async (value) => {
      const res = await t.request('POST', '/api/v1/public/meetings', { key, body: { title: 'Dated', scheduled_at: value } });
      expect(res.status).toBe(201);
      expect(res.body.scheduled_at).toBe(value);
    },
  );
});

describe('bidi controls never reach Slack or Teams messages', () => {
  it('neutralises them in every text of the message, also for events stored before the rules', () => {
    const event: WebhookEvent = {
      id: 'evt_1',
      type: 'registration.created',
      created_at: '2026-12-01T10:00:00Z',
      data: {
        meeting: { id: 'mtg_1', code: 'abc-defg-hij', title: 'Pay \u202eexe.pdf', status: 'scheduled' },
        webinar: { slug: 'launch', title: 'Launch \u2066x\u2069', meeting_id: 'mtg_1' },
        registration: { id: 'reg_1', email: 'a@example.com', name: 'Eve\u202d\u0000' },
      },
    };
    const slack = JSON.stringify(slackMessageFor(event, {}));
    const teams = JSON.stringify(teamsMessageFor(event, {}));
    for (const message of [slack, teams]) {
      expect(message).not.toMatch(/[\u202a-\u202e\u2066-\u2069]|\\u202[a-e]|\\u206[6-9]|\\u0000/);
      expect(message).toContain('Eve');
    }
  });
});
