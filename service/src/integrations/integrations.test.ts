import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SCOPES } from '../keys/scopes';
import type { DeliveryWorker } from '../outbox/delivery.worker';
import { startFakeSlack, startFakeTeams, type FakeSlack, type FakeTeams } from '../testing/fake-chat';
import { seedMeeting } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';

const TOKEN = 'xoxb-1111111111-2222222222-abcdefghijklmnopqrstuvwx';

describe('integrations: Slack and Teams notifications', () => {
  let t: TestServer;
  let slack: FakeSlack;
  let teams: FakeTeams;
  let worker: DeliveryWorker;
  let key: string;
  beforeEach(async () => {
    slack = await startFakeSlack({ token: TOKEN, channels: ['C0MEETINGS'] });
    teams = await startFakeTeams();
    t = await startTestServer({
      SVC_ALLOW_INSECURE_WEBHOOKS: 'true',
      SVC_SLACK_API_URL: slack.apiUrl,
      SVC_BASE_URL: 'https://meet.example.com',
    });
    key = t.key();
    worker = t.deliveryWorker({ random: () => 0.5 });
  });
  afterEach(async () => {
    await worker.stop();
    await t.close();
    await slack.close();
    await teams.close();
  });
  const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, `/api/v1/public${path}`, { key: k, body });
  const addSlack = (events: string[] = ['meeting.started'], channel = 'C0MEETINGS') =>
    api('POST', '/integrations', { kind: 'slack', bot_token: TOKEN, channel, events });
  const addTeams = (events: string[] = ['meeting.started']) =>
    api('POST', '/integrations', { kind: 'teams', webhook_url: teams.url, events });

  /** One event of every type, through the services that emit them. */
  async function emitEveryType(): Promise<void> {
    const m = seedMeeting(t, { title: 'Quarterly <review> & plan' });
    t.services.meetings.start(m);
    t.clock.advance(45 * 60_000);
    t.services.meetings.end(t.services.meetings.findAnywhere(m.id));
    const rec = t.services.recordings.start(m.id, 'video');
    t.services.recordings.markReady(rec.id, {
      fileName: `${rec.id}.webm`,
      contentType: 'video/webm',
      sizeBytes: 1000,
      durationSeconds: 2701,
    });
    t.services.transcripts.complete(m.id, { language: 'en', segments: [{ start: 0, end: 2, speaker: null, text: 'Hello.' }] });
    t.services.summaries.save(m.id, { tldr: 'Plan approved.', decisions: [], action_items: [], generator: 'extractive' });
    seedMeeting(t, { kind: 'webinar', slug: 'launch-day', title: 'Launch day' });
    await api('POST', '/webinars/launch-day/registrations', { email: 'ada@example.com', name: 'Ada' });
  }
  const ALL = ['meeting.started', 'meeting.ended', 'recording.ready', 'transcript.ready', 'summary.ready', 'registration.created'];

  it('stores the token and URL only encrypted and never returns them', async () => {
    const s = await addSlack();
    const tm = await addTeams();
    expect(s.status).toBe(201);
    expect(s.body).toMatchObject({
      kind: 'slack',
      channel: 'C0MEETINGS',
      secret_hint: 'xoxb-…uvwx',
      enabled: true,
      status: 'ok',
      last_error: null,
    });
    expect(tm.body).toMatchObject({ kind: 'teams', channel: null, secret_hint: new URL(teams.url).host });
    const everything = JSON.stringify([
      (await api('GET', '/integrations')).body,
      (await api('GET', `/integrations/${s.body.id}`)).body,
      t.services.db.prepare('SELECT * FROM integrations').all(),
    ]);
    expect(everything).not.toContain(TOKEN.slice(5));
    expect(everything).not.toContain('secret-sig');
  });

  it('posts a Block Kit message for every event type to the configured channel with the bot token, form-encoded', async () => {
    await addSlack(ALL);
    await emitEveryType();
    expect(await worker.runOnce()).toBe(6);
    expect(slack.problems).toEqual([]);
    expect(slack.posts.map((p) => [p.token, p.channel])).toEqual(Array(6).fill([TOKEN, 'C0MEETINGS']));
    const texts = slack.posts.map((p) => p.text);
    expect(texts[0]).toBe(
      `Quarterly <review> & plan has started https://meet.example.com/m/${t.services.meetings.findAnywhere(t.services.db.prepare("SELECT id FROM meetings WHERE title LIKE 'Quarterly%'").pluck().get() as string).code}`,
    );
    expect(texts[1]).toMatch(/has ended/);
    expect(texts[2]).toMatch(
      /^The recording of .* is ready https:\/\/meet\.example\.com\/api\/v1\/public\/recordings\/rec_\w+\/download\?token=[\w.-]+$/,
    );
    expect(texts[3]).toMatch(/transcript of .* is ready/);
    expect(texts[4]).toMatch(/summary of .* is ready/);
    expect(texts[5]).toMatch(/^Ada registered for Launch day/);
    const first = JSON.stringify(slack.posts[0]!.blocks);
    expect(slack.posts[0]!.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Quarterly <review> & plan has started' },
    });
    expect(first).not.toContain('&lt;');
    expect(JSON.stringify(slack.posts[1]!.blocks)).toContain('45:00');
    expect(JSON.stringify(slack.posts[2]!.blocks)).toContain('45:01');
    expect(JSON.stringify(slack.posts[4]!.blocks)).toContain('Plan approved.');
    const integration = (await api('GET', '/integrations')).body.data[0];
    expect(integration).toMatchObject({ status: 'ok', last_delivered_at: new Date(t.clock.now()).toISOString() });
  });

  it('posts a valid Adaptive Card 1.4 for every event type to Teams', async () => {
    await addTeams(ALL);
    await emitEveryType();
    expect(await worker.runOnce()).toBe(6);
    expect(teams.problems).toEqual([]);
    expect(teams.posts).toHaveLength(6);
    expect(teams.posts[0]!.path).toBe(new URL(teams.url).pathname + new URL(teams.url).search);
    const started = teams.posts[0]!.card as { body: { text?: string }[]; actions: { type: string; url: string; title: string }[] };
    expect(started.body[0]!.text).toBe('Quarterly <review> & plan has started');
    expect(started.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Join', url: expect.stringMatching(/^https:\/\/meet\.example\.com\/m\/[a-z-]+$/) },
    ]);
    expect(JSON.stringify(teams.posts[2]!.card)).toContain('Download recording');
  });

  it('retries Slack’s ratelimited answer after its Retry-After and shows the failure in the integration’s status', async () => {
    const { body: integration } = await addSlack();
    slack.rateLimitNext(1, 30);
    t.services.meetings.start(seedMeeting(t));
    await worker.runOnce();
    expect((await api('GET', `/integrations/${integration.id}`)).body).toMatchObject({
      status: 'failing',
      last_error: 'ratelimited',
      enabled: true,
    });
    const [delivery] = (await api('GET', `/integrations/${integration.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({
      status: 'pending',
      integration_id: integration.id,
      next_attempt_at: new Date(t.clock.now() + 30_000).toISOString(),
    });
    expect(delivery.attempts[0]).toMatchObject({ status_code: 429, error: 'ratelimited' });
    t.clock.advance(29_999);
    expect(await worker.runOnce()).toBe(0);
    t.clock.advance(1);
    expect(await worker.runOnce()).toBe(1);
    expect(slack.posts).toHaveLength(1);
    expect((await api('GET', `/integrations/${integration.id}`)).body).toMatchObject({ status: 'ok', last_error: null });
  });

  it('fails a message Slack refuses (invalid_blocks) at once, without retrying it, and keeps the integration enabled', async () => {
    const { body: integration } = await addSlack();
    slack.refuseNext(1, 'invalid_blocks');
    t.services.meetings.start(seedMeeting(t));
    expect(await worker.runOnce()).toBe(1);
    const [delivery] = (await api('GET', `/integrations/${integration.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1, next_attempt_at: null });
    expect((await api('GET', `/integrations/${integration.id}`)).body).toMatchObject({ enabled: true, last_error: 'invalid_blocks' });
    t.clock.advance(3 * 60 * 60_000);
    expect(await worker.runOnce()).toBe(0);
    expect(slack.calls()).toBe(1);
    t.services.meetings.start(seedMeeting(t));
    expect(await worker.runOnce()).toBe(1);
    expect(slack.posts).toHaveLength(1);
    expect((await api('GET', `/integrations/${integration.id}`)).body).toMatchObject({ status: 'ok', last_error: null });
  });

  it('keeps a long title and TL;DR within Block Kit limits, which the fake Slack checks as Slack does', async () => {
    await addSlack(['meeting.started', 'summary.ready']);
    const m = seedMeeting(t, { title: `${'Roadmap & <budget> '.repeat(10)}`.trim().slice(0, 200) });
    t.services.meetings.start(m);
    t.services.summaries.save(m.id, {
      tldr: 'We agreed & <shipped>. '.repeat(300),
      decisions: [],
      action_items: [],
      generator: 'extractive',
    });
    expect(await worker.runOnce()).toBe(2);
    expect(slack.problems).toEqual([]);
    const [started, summary] = slack.posts;
    const header = started!.blocks[0] as { type: string; text: { text: string } };
    expect(header.type).toBe('header');
    expect(header.text.text.length).toBeLessThanOrEqual(150);
    expect(header.text.text).toMatch(/^Roadmap & <budget> .*…$/);
    const body = (summary!.blocks[1] as { text: { text: string } }).text.text;
    expect(body.length).toBeLessThanOrEqual(3000);
    expect(body).toMatch(/^We agreed &amp; &lt;shipped&gt;\. .*…$/);
  });

  it('links to pages that open without an API key: the meeting page and the signed recording download', async () => {
    await addSlack(['meeting.started', 'recording.ready']);
    const m = seedMeeting(t, { title: 'Link check' });
    t.services.meetings.start(m);
    const rec = t.services.recordings.start(m.id, 'video');
    mkdirSync(path.join(t.config.dataDir, 'recordings'), { recursive: true });
    writeFileSync(path.join(t.config.dataDir, 'recordings', `${rec.id}.webm`), Buffer.from('webm bytes'));
    t.services.recordings.markReady(rec.id, { fileName: `${rec.id}.webm`, contentType: 'video/webm', sizeBytes: 10, durationSeconds: 1 });
    expect(await worker.runOnce()).toBe(2);
    const urls = slack.posts.map((p) => {
      const actions = p.blocks.find((b) => b.type === 'actions') as { elements: { url: string }[] };
      return actions.elements[0]!.url;
    });
    expect(urls[0]).toBe(`https://meet.example.com/m/${m.code}`);
    expect(urls[1]).toMatch(/\/recordings\/rec_\w+\/download\?token=/);
    for (const url of urls) {
      const { pathname, search } = new URL(url);
      const res = await fetch(`${t.url}${pathname}${search}`);
      expect([url, res.status]).toEqual([url, 200]);
    }
    expect(await (await fetch(`${t.url}${new URL(urls[1]!).pathname}${new URL(urls[1]!).search}`)).text()).toBe('webm bytes');
  });

  it('disables the integration on channel_not_found, and sends what waited once the channel is fixed', async () => {
    const { body: integration } = await addSlack(['meeting.started'], 'C0GONE');
    t.services.meetings.start(seedMeeting(t));
    await worker.runOnce();
    expect((await api('GET', `/integrations/${integration.id}`)).body).toMatchObject({
      status: 'disabled',
      enabled: false,
      disabled_reason: 'Slack answered channel_not_found',
      last_error: 'channel_not_found',
    });
    expect((await api('GET', `/integrations/${integration.id}/deliveries`)).body.data[0]).toMatchObject({
      status: 'failed',
      attempt_count: 1,
    });
    t.services.meetings.start(seedMeeting(t));
    expect(await worker.runOnce()).toBe(0);
    const fixed = await api('PATCH', `/integrations/${integration.id}`, { channel: 'C0MEETINGS' });
    expect(fixed.body).toMatchObject({ enabled: true, status: 'ok', channel: 'C0MEETINGS' });
    t.services.meetings.start(seedMeeting(t));
    expect(await worker.runOnce()).toBe(1);
    expect(slack.posts).toHaveLength(1);
  });

  it('disables a Teams integration whose workflow is gone (404) and retries a 500', async () => {
    const { body: integration } = await addTeams();
    teams.answerWith(500);
    t.services.meetings.start(seedMeeting(t));
    await worker.runOnce();
    expect((await api('GET', `/integrations/${integration.id}`)).body).toMatchObject({ status: 'failing', last_error: 'answered 500' });
    teams.answerWith(404);
    t.clock.advance(5_000);
    await worker.runOnce();
    expect((await api('GET', `/integrations/${integration.id}`)).body).toMatchObject({
      status: 'disabled',
      disabled_reason: 'the Teams workflow URL answered 404',
    });
  });

  it.each([
    [{ kind: 'slack', bot_token: TOKEN, events: ['meeting.started'] }, 'channel'],
    [{ kind: 'slack', channel: 'C0MEETINGS', events: ['meeting.started'] }, 'bot_token'],
    [{ kind: 'slack', bot_token: 'not-a-token', channel: 'C0MEETINGS', events: ['meeting.started'] }, 'bot_token'],
    [{ kind: 'teams', events: ['meeting.started'] }, 'webhook_url'],
    [{ kind: 'teams', webhook_url: 'ftp://x.example.com', events: ['meeting.started'] }, 'webhook_url'],
    [{ kind: 'teams', webhook_url: 'https://x.example.com', bot_token: TOKEN, events: ['meeting.started'] }, 'bot_token'],
    [{ kind: 'discord', events: ['meeting.started'] }, 'kind'],
    [{ kind: 'slack', bot_token: TOKEN, channel: 'C0MEETINGS', events: [] }, 'events'],
  ])('rejects %j (param %s) and stores nothing', async (body, param) => {
    const res = await api('POST', '/integrations', body);
    expect(res.status).toBe(400);
    expect(res.body.param).toBe(param);
    expect(t.services.db.prepare('SELECT count(*) FROM integrations').pluck().get()).toBe(0);
  });

  it('needs integrations:write, and the scope that reads each event type', async () => {
    const noScope = t.key(['meetings:read']);
    expect((await api('GET', '/integrations', undefined, noScope)).body.required_scope).toBe('integrations:write');
    const limited = t.key(['integrations:write', 'meetings:read']);
    const res = await api('POST', '/integrations', { kind: 'teams', webhook_url: teams.url, events: ['summary.ready'] }, limited);
    expect(res.status).toBe(403);
    expect(res.body.required_scope).toBe('transcripts:read');
  });

  it('needs the scope that reads each type on PATCH events too, and changes nothing when refused', async () => {
    const limited = t.key(['integrations:write', 'meetings:read']);
    const created = await api('POST', '/integrations', { kind: 'teams', webhook_url: teams.url, events: ['meeting.ended'] }, limited);
    expect(created.status).toBe(201);
    const before = JSON.stringify(t.services.db.prepare('SELECT * FROM integrations WHERE id = ?').get(created.body.id));
    const res = await api('PATCH', `/integrations/${created.body.id}`, { events: ['recording.ready'] }, limited);
    expect(res.status).toBe(403);
    expect(res.body.required_scope).toBe('recordings:read');
    expect(JSON.stringify(t.services.db.prepare('SELECT * FROM integrations WHERE id = ?').get(created.body.id))).toBe(before);
  });

  it('keeps integrations of other organizations out of reach, and deletes with deliveries', async () => {
    const other = t.services.identity.createOrganization(t.owner.id, 'Other');
    const foreign = t.services.integrations.create(other.id, { kind: 'teams', webhook_url: teams.url, events: ['meeting.started'] });
    const restricted = t.key(SCOPES, { org: t.org.id });
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['GET', '/deliveries'],
    ] as const) {
      const res = await api(method, `/integrations/${foreign.id}${path}`, method === 'PATCH' ? { enabled: false } : undefined, restricted);
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    const { body: mine } = await addTeams();
    t.services.meetings.start(seedMeeting(t));
    expect((await api('DELETE', `/integrations/${mine.id}`)).status).toBe(204);
    expect(t.services.db.prepare('SELECT count(*) FROM deliveries WHERE destination_id = ?').pluck().get(mine.id)).toBe(0);
  });
});
