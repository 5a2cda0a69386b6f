import { startTestServer, type TestServer, startReceiver, type TestReceiver } from '@svc/service/testing';
import { newWebhookSecret, signDelivery, svcSignature } from '@svc/connectors';
import { loadBlueprint, type Blueprint } from './blueprint';
import { runBlueprint, RunError, webhookBundleOf, type Bundle, type RunOptions, type RunResult } from './runner';

const API = '/api/v1/public';
const SECRET = newWebhookSecret();

let server: TestServer;
let key: string;
let sheet: TestReceiver;

beforeAll(async () => {
  server = await startTestServer({ SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });
  key = server.key();
  sheet = await startReceiver();
});

afterAll(async () => {
  await sheet.close();
  await server.close();
});

function placeholders(): Record<string, string> {
  return { YOUR_SVC_BASE_URL: server.url, YOUR_SVC_WEBHOOK_SECRET: SECRET, YOUR_SHEET_ENDPOINT_URL: sheet.url };
}

/** The svc API key keychain as the README tells users to create it: header Authorization, key `Bearer svc_sk_...`. */
function keychain(k = key): { name: string; key: string } {
  return { name: 'Authorization', key: `Bearer ${k}` };
}

function run(
  file: string,
  trigger?: Bundle,
  dataStore?: Map<string, Bundle>,
  now?: () => number,
  more: Partial<RunOptions> = {},
): Promise<RunResult> {
  return runBlueprint(loadBlueprint(file), { placeholders: placeholders(), keychain: keychain(), trigger, dataStore, now, ...more });
}

async function api(method: string, path: string, body?: unknown) {
  return server.request(method, API + path, { key, body });
}

async function createWebinar(slug: string) {
  const res = await api('POST', '/meetings', {
    title: `Webinar ${slug}`,
    kind: 'webinar',
    slug,
    scheduled_at: '2026-12-01T16:00:00+01:00',
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; code: string; title: string };
}

async function register(slug: string, email: string) {
  expect((await api('POST', `/webinars/${slug}/registrations`, { email, name: `Guest ${email}` })).status).toBe(201);
}

async function newestEvents(
  limit: number,
): Promise<{ id: string; type: string; created_at: string; data: { meeting: { code: string; title: string } } }[]> {
  return (await api('GET', `/events?limit=${limit}`)).body.data;
}

function rowsSince(count: number): unknown[] {
  return sheet.requests.slice(count).map((request) => JSON.parse(request.rawBody.toString('utf8')) as unknown);
}

describe('create-meeting.blueprint.json against svc', () => {
  const FILE = 'create-meeting.blueprint.json';

  it('creates the meeting the call describes and answers with its join link', async () => {
    const title = 'Quarterly "review" – Café ✓ \\o/';
    const result = await run(FILE, {
      title,
      scheduled_at: '2026-12-01T10:00:00+02:00',
      duration_minutes: 45,
      time_zone: 'europe/berlin',
      join_before_start_minutes: 30,
      recording_layout: 'grid',
      captions: true,
    });
    expect(result.response).toMatchObject({ status: 201, headers: { 'Content-Type': 'application/json' } });
    const answer = JSON.parse(result.response!.body) as { id: string; code: string; join_url: string; time_zone: string };
    expect(answer.time_zone).toBe('Europe/Berlin');
    const stored = await api('GET', `/meetings/${answer.id}`);
    expect(stored.body).toMatchObject({
      title,
      kind: 'meeting',
      scheduled_at: '2026-12-01T10:00:00+02:00',
      duration_minutes: 45,
      time_zone: 'Europe/Berlin',
      settings: { join_before_start_minutes: 30, recording_layout: 'grid', captions: true },
      code: answer.code,
      join_url: answer.join_url,
    });
  });

  it('keeps a hostile title inside the title and defaults the duration to an hour, the zone to UTC, early joining to 10 minutes, the layout to active speaker and captions to off', async () => {
    const title = 'x", "kind": "webinar", "slug": "taken-over';
    const result = await run(FILE, { title, scheduled_at: '2026-12-02T10:00:00Z' });
    const answer = JSON.parse(result.response!.body) as { id: string };
    expect((await api('GET', `/meetings/${answer.id}`)).body).toMatchObject({
      title,
      kind: 'meeting',
      duration_minutes: 60,
      time_zone: 'UTC',
      settings: { join_before_start_minutes: 10, recording_layout: 'active_speaker', captions: false },
    });
  });

  it('keeps a hostile recording layout inside the setting, which svc then refuses', async () => {
    const recording_layout = 'grid", "kind": "webinar", "slug": "taken-over';
    const result = await run(FILE, { title: 'Layout', scheduled_at: '2026-12-02T10:00:00Z', recording_layout });
    expect(result.response).toMatchObject({ status: 400 });
    expect(JSON.parse(result.response!.body)).toEqual({ error: 'validation_failed' });
  });

  it("passes svc's refusal of an unknown time zone back to the caller", async () => {
    const result = await run(FILE, { title: 'Where?', scheduled_at: '2026-12-01T10:00:00Z', time_zone: 'Mars/Olympus' });
    expect(result.response).toMatchObject({ status: 400 });
    expect(JSON.parse(result.response!.body)).toEqual({ error: 'validation_failed' });
  });

  it("passes svc's refusal back to the caller and creates nothing", async () => {
    const count = async () => (await api('GET', '/meetings?limit=100')).body.data.length as number;
    const before = await count();
    const result = await run(FILE, { title: 'No offset', scheduled_at: '2026-12-01T10:00:00', duration_minutes: 45 });
    expect(result.response).toMatchObject({ status: 400 });
    expect(JSON.parse(result.response!.body)).toEqual({ error: 'validation_failed' });
    expect(await count()).toBe(before);
  });
});

describe('register-webinar-participant.blueprint.json against svc', () => {
  const FILE = 'register-webinar-participant.blueprint.json';

  it('registers the participant once and answers with the join link', async () => {
    await createWebinar('launch-2026');
    const trigger = { slug: 'launch-2026', email: 'zoe@example.com', name: 'Zoë "ZB" O\'Brien' };
    const first = await run(FILE, trigger);
    expect(first.response?.status).toBe(201);
    const answer = JSON.parse(first.response!.body) as { id: string; join_url: string };
    expect(answer.join_url).toMatch(/\/m\/[a-z]{3}-[a-z]{4}-[a-z]{3}\?invite=[\w-]+\.[\w-]+$/);

    const feed = async () =>
      (await api('GET', '/triggers/registration.created?slug=launch-2026')).body.data as { data: { registration: unknown } }[];
    const events = await feed();
    expect(events).toHaveLength(1);
    expect(events[0]!.data.registration).toMatchObject({ id: answer.id, email: trigger.email, name: trigger.name });

    const again = await run(FILE, trigger);
    expect(again.response?.status).toBe(200);
    expect(JSON.parse(again.response!.body)).toEqual(answer);
    expect(await feed()).toHaveLength(1);
  });

  it('answers 404 for a webinar svc does not know', async () => {
    const result = await run(FILE, { slug: 'no-such-webinar', email: 'a@example.com', name: 'A' });
    expect(result.response?.status).toBe(404);
    expect(JSON.parse(result.response!.body)).toEqual({ error: 'not_found' });
  });
});

describe('poll-event-feed.blueprint.json against svc', () => {
  const FILE = 'poll-event-feed.blueprint.json';
  const feed = (since: string) => `${server.url}${API}/events?since=${since}&limit=100`;

  it('starts at the newest event, then posts exactly the newer events as rows, in order', async () => {
    await createWebinar('feed-2026');
    await register('feed-2026', 'one@example.com');
    await register('feed-2026', 'two@example.com');
    const store = new Map<string, Bundle>();
    const sent = sheet.requests.length;

    const first = await run(FILE, undefined, store);
    const [newest] = await newestEvents(1);
    expect(first.requests.map((r) => r.url)).toEqual([`${server.url}${API}/events?limit=1`]);
    expect(first.requests[0]!.headers).toEqual({ Authorization: `Bearer ${key}` });
    expect(store.get('svc-feed-cursor')).toEqual({ cursor: newest!.id, last_count: '0', last_error: '' });
    expect(sheet.requests).toHaveLength(sent);

    await register('feed-2026', 'three@example.com');
    await register('feed-2026', 'four@example.com');
    const second = await run(FILE, undefined, store);
    const newer = (await newestEvents(2)).reverse();
    expect(second.requests[0]!.url).toBe(feed(newest!.id));
    expect(rowsSince(sent)).toEqual(
      newer.map((e) => ({
        event_id: e.id,
        type: 'registration.created',
        created_at: e.created_at,
        meeting_code: e.data.meeting.code,
        title: 'Webinar feed-2026',
      })),
    );
    // A page of 2 is the last one: the other nine repeats read nothing.
    expect(second.requests.filter((r) => r.url.includes('/events'))).toHaveLength(1);
    expect(store.get('svc-feed-cursor')).toEqual({ cursor: newer[1]!.id, last_count: 2, last_error: '' });

    const third = await run(FILE, undefined, store);
    expect(third.requests.map((r) => r.url)).toEqual([feed(newer[1]!.id)]);
    expect(sheet.requests).toHaveLength(sent + 2);
    expect(store.get('svc-feed-cursor')).toEqual({ cursor: newer[1]!.id, last_count: 0, last_error: '' });
  });

  it('drains more than 100 new events in one run by following next_cursor, page after page', async () => {
    const store = new Map<string, Bundle>();
    await run(FILE, undefined, store);
    const start = store.get('svc-feed-cursor')!.cursor as string;
    await createWebinar('feed-drain');
    for (let i = 0; i < 229; i++) await register('feed-drain', `drain-${i}@example.com`);
    const sent = sheet.requests.length;
    const result = await run(FILE, undefined, store);
    const pages = result.requests.filter((r) => r.url.includes('/events'));
    expect(pages).toHaveLength(3);
    expect(pages[0]!.url).toBe(feed(start));
    const rows = rowsSince(sent) as { event_id: string }[];
    // 229 registration.created events (creating the webinar emits none).
    expect(rows).toHaveLength(229);
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(229);
    expect(rows.map((r) => r.event_id)).toEqual([...rows.map((r) => r.event_id)].sort());
    expect(pages[1]!.url).toBe(feed(rows[99]!.event_id));
    expect(pages[2]!.url).toBe(feed(rows[199]!.event_id));
    expect(store.get('svc-feed-cursor')).toEqual({ cursor: rows[228]!.event_id, last_count: 29, last_error: '' });
  }, 60_000);

  it('waits Retry-After on a 429 and reads the same page again, losing and repeating nothing', async () => {
    const limited = server.key(undefined, { rateLimited: true });
    const store = new Map<string, Bundle>();
    await run(FILE, undefined, store, undefined, { keychain: keychain(limited) });
    const cursor = store.get('svc-feed-cursor')!.cursor as string;
    await createWebinar('feed-429');
    await register('feed-429', 'late@example.com');
    // Use up the key's 20 requests of this second (the test server's clock stands still until the sleep moves it).
    for (let i = 0; i < 19; i++) await server.request('GET', `${API}/me`, { key: limited });
    const slept: number[] = [];
    const sleep = async (seconds: number) => {
      slept.push(seconds);
      server.clock.advance(seconds * 1000);
    };
    const sent = sheet.requests.length;
    const result = await run(FILE, undefined, store, undefined, { keychain: keychain(limited), sleep });
    const pages = result.requests.filter((r) => r.url.includes('/events'));
    expect(pages.map((r) => [r.url, r.statusCode])).toEqual([
      [feed(cursor), 429],
      [feed(cursor), 200],
    ]);
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThanOrEqual(1);
    expect((rowsSince(sent) as { event_id: string }[]).map((r) => r.event_id)).toEqual([(await newestEvents(1))[0]!.id]);
    expect(store.get('svc-feed-cursor')).toMatchObject({ last_count: 1, last_error: '' });
  });

  it('records a refusal in the data store and keeps the cursor', async () => {
    const store = new Map<string, Bundle>();
    await run(FILE, undefined, store);
    const before = store.get('svc-feed-cursor')!;
    const result = await run(FILE, undefined, store, undefined, { keychain: { name: 'Authorization', key: 'Bearer svc_sk_unknown' } });
    expect(result.requests.map((r) => r.statusCode)).toEqual([401]);
    expect(store.get('svc-feed-cursor')).toEqual({ cursor: before.cursor, last_count: '0', last_error: 'svc answered 401' });
  });
});

describe('event-to-sheet-row.blueprint.json with signed svc deliveries', () => {
  const FILE = 'event-to-sheet-row.blueprint.json';
  const NOW_MS = Date.now();
  const now = () => Math.floor(NOW_MS / 1000);
  const runSheet = (trigger: Bundle) => run(FILE, trigger, undefined, () => NOW_MS);

  beforeAll(() => createWebinar('sheet-2026'));

  async function realEvent() {
    await register('sheet-2026', `sheet-${Date.now()}@example.com`);
    const [event] = await newestEvents(1);
    return { event: event!, rawBody: JSON.stringify(event) };
  }

  function delivery(rawBody: string, opts: { secrets?: string[]; timestamp?: number } = {}): Bundle {
    const headers = signDelivery({
      secrets: opts.secrets ?? [SECRET],
      eventId: 'evt_x',
      eventType: 'registration.created',
      deliveryId: 'dlv_x',
      timestamp: opts.timestamp ?? now(),
      rawBody,
    });
    return {
      value: rawBody,
      __IMTHEADERS__: Object.entries(headers).map(([name, value]) => ({ name: name.toLowerCase(), value })),
      __IMTMETHOD__: 'POST',
    };
  }

  const ran = (result: RunResult, moduleId: number) => result.outputs.some((output) => output.moduleId === moduleId);

  it("computes svc's signature with Make's sha256 and posts the row of a genuine delivery", async () => {
    const { event, rawBody } = await realEvent();
    const timestamp = now();
    const sent = sheet.requests.length;
    const result = await runSheet(delivery(rawBody, { timestamp }));
    const variables = result.outputs.find((output) => output.moduleId === 2)!.bundle;
    expect(variables.expected_signature).toBe(svcSignature(SECRET, timestamp, rawBody));
    expect(result.response).toMatchObject({ status: 200 });
    expect(rowsSince(sent)).toEqual([
      {
        event_id: event.id,
        type: 'registration.created',
        created_at: event.created_at,
        meeting_code: event.data.meeting.code,
        title: 'Webinar sheet-2026',
      },
    ]);
    expect(sheet.requests.at(-1)!.headers['content-type']).toBe('application/json');
  });

  it("verifies a real delivery of the svc delivery worker, sent with the endpoint's x-make-apikey header, as Make receives it", async () => {
    const hook = await startReceiver();
    const worker = server.deliveryWorker({ random: () => 0.5 });
    try {
      const endpoint = await api('POST', '/webhook-endpoints', {
        url: hook.url,
        events: ['registration.created'],
        headers: { 'x-make-apikey': 'make-hook-key-7c41' },
      });
      expect(endpoint.body.headers).toEqual(['x-make-apikey']);
      await register('sheet-2026', `worker-${Date.now()}@example.com`);
      await worker.runOnce();
      expect(hook.requests).toHaveLength(1);
      const trigger = webhookBundleOf({ method: 'POST', headers: hook.requests[0]!.headers, rawBody: hook.requests[0]!.rawBody });
      expect(trigger.__IMTHEADERS__).toContainEqual({ name: 'x-make-apikey', value: 'make-hook-key-7c41' });
      const sent = sheet.requests.length;
      const signedAt = Number(hook.requests[0]!.headers['x-svc-timestamp']) * 1000;
      const result = await runBlueprint(loadBlueprint(FILE), {
        placeholders: { ...placeholders(), YOUR_SVC_WEBHOOK_SECRET: endpoint.body.secret },
        keychain: keychain(),
        trigger,
        now: () => signedAt,
      });
      expect(result.response).toMatchObject({ status: 200 });
      expect(sheet.requests).toHaveLength(sent + 1);
    } finally {
      await worker.stop();
      await hook.close();
    }
  });

  it('refuses a trigger that breaks the assumptions of the check: a parsed body, or header names not in lower case', async () => {
    const { rawBody } = await realEvent();
    const parsed = { ...delivery(rawBody), value: JSON.parse(rawBody) as unknown };
    await expect(runSheet(parsed)).rejects.toThrow(
      new RunError(1, 'the webhook declares JSON pass-through: the raw body must arrive as text in `value`'),
    );
    const cased = delivery(rawBody);
    cased.__IMTHEADERS__ = (cased.__IMTHEADERS__ as { name: string; value: string }[]).map((h) => ({ ...h, name: h.name.toUpperCase() }));
    await expect(runSheet(cased)).rejects.toThrow(new RunError(1, 'header names arrive in lower case, not "CONTENT-TYPE"'));
  });

  it.each([
    ['one byte of the body changed', (raw: string) => ({ ...delivery(raw), value: raw.replace('sheet-2026', 'sheet-2027') })],
    ['another secret', (raw: string) => delivery(raw, { secrets: [newWebhookSecret()] })],
    ['a timestamp 300 s old', (raw: string) => delivery(raw, { timestamp: now() - 300 })],
    ['a timestamp 300 s ahead', (raw: string) => delivery(raw, { timestamp: now() + 300 })],
    ['no signature header', (raw: string) => ({ ...delivery(raw), __IMTHEADERS__: [] })],
  ])('answers 401 and writes no row for a delivery with %s', async (_label, build) => {
    const { rawBody } = await realEvent();
    const sent = sheet.requests.length;
    const result = await runSheet(build(rawBody));
    expect(result.response).toMatchObject({ status: 401 });
    expect(ran(result, 4)).toBe(false);
    expect(result.requests).toEqual([]);
    expect(sheet.requests).toHaveLength(sent);
  });

  it('accepts a delivery 299 s old and one signed with two secrets during a rotation', async () => {
    const { rawBody } = await realEvent();
    expect((await runSheet(delivery(rawBody, { timestamp: now() - 299 }))).response?.status).toBe(200);
    expect((await runSheet(delivery(rawBody, { secrets: [newWebhookSecret(), SECRET] }))).response?.status).toBe(200);
  });

  it('answers 503 so that svc retries when the sheet does not take the row', async () => {
    const { rawBody } = await realEvent();
    sheet.reply = () => ({ status: 500 });
    try {
      const result = await runSheet(delivery(rawBody));
      expect(result.requests.map((r) => r.statusCode)).toEqual([500]);
      expect(result.response).toMatchObject({ status: 503 });
    } finally {
      sheet.reply = () => ({ status: 200 });
    }
  });
});

describe('runBlueprint refuses what it cannot do faithfully', () => {
  const tiny = (mapper: Record<string, unknown>): Blueprint => ({
    ...loadBlueprint('create-meeting.blueprint.json'),
    flow: [{ id: 1, module: 'util:SetVariables', version: 1, parameters: {}, mapper, metadata: { designer: { x: 0, y: 0 } } }],
  });

  it('stops on a function it does not implement', async () => {
    const blueprint = tiny({ variables: [{ name: 'x', value: '{{md5(1.value)}}' }], scope: 'roundtrip' });
    await expect(runBlueprint(blueprint, { placeholders: {} })).rejects.toThrow(
      new RunError(1, 'the runner does not support the function md5()'),
    );
  });

  it('stops when a placeholder has no value', async () => {
    const blueprint = tiny({ variables: [{ name: 'x', value: 'YOUR_SVC_BASE_URL/x' }], scope: 'roundtrip' });
    await expect(runBlueprint(blueprint, { placeholders: {} })).rejects.toThrow('no value given for the placeholder(s) YOUR_SVC_BASE_URL');
  });

  it('stops on an HTTP option it does not honour', async () => {
    const blueprint = loadBlueprint('create-meeting.blueprint.json');
    blueprint.flow.find((module) => module.id === 5)!.mapper!.shareCookies = true;
    const trigger = { title: 't', scheduled_at: '2026-12-01T10:00:00Z', duration_minutes: 30 };
    await expect(runBlueprint(blueprint, { placeholders: placeholders(), keychain: keychain(), trigger })).rejects.toThrow(
      new RunError(5, 'the runner supports shareCookies only as false'),
    );
  });

  it('stops on an API key request without a keychain, and on a Sleep longer than Make allows', async () => {
    const trigger = { title: 't', scheduled_at: '2026-12-01T10:00:00Z', duration_minutes: 30 };
    await expect(runBlueprint(loadBlueprint('create-meeting.blueprint.json'), { placeholders: placeholders(), trigger })).rejects.toThrow(
      new RunError(5, 'an API key request needs the keychain (RunOptions.keychain)'),
    );
    const blueprint: Blueprint = {
      ...loadBlueprint('create-meeting.blueprint.json'),
      flow: [
        {
          id: 1,
          module: 'util:FunctionSleep',
          version: 1,
          parameters: {},
          mapper: { duration: '301' },
          metadata: { designer: { x: 0, y: 0 } },
        },
      ],
    };
    await expect(runBlueprint(blueprint, { placeholders: {}, sleep: async () => undefined })).rejects.toThrow(
      new RunError(1, 'the delay must be 0 to 300 seconds, not "301"'),
    );
  });
});
