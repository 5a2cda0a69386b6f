import { loadConfig } from '../config';
import {
  dashboardClient,
  databaseSnapshot,
  seedMeeting,
  startFakeSlack,
  startTestServer,
  type FakeSlack,
  type FakeSlackApp,
  type TestServer,
} from '../testing';
import { CHOOSE_CHANNEL } from './integrations.service';
import { SLACK_OAUTH_CALLBACK_PATH, SLACK_STATE_TTL_MS } from './slack-oauth.service';

const CLIENT_ID = '1234567890.0987654321';
const CLIENT_SECRET = 'slack-client-secret-0123456789abcdef';
const BOT_TOKEN = 'xoxb-1111-2222-installedbytoken';

describe('Add to Slack (OAuth v2 install)', () => {
  let slack: FakeSlack;
  let t: TestServer;
  let app: FakeSlackApp;
  let owner: ReturnType<typeof dashboardClient>;

  beforeAll(async () => {
    slack = await startFakeSlack({ token: BOT_TOKEN, channels: ['C0MEETINGS'] });
    t = await startTestServer(
      {
        SVC_SLACK_CLIENT_ID: CLIENT_ID,
        SVC_SLACK_CLIENT_SECRET: CLIENT_SECRET,
        SVC_SLACK_API_URL: slack.apiUrl,
        SVC_SLACK_AUTHORIZE_URL: slack.authorizeUrl,
      },
      { ownBaseUrl: true },
    );
    app = {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: `${t.url}${SLACK_OAUTH_CALLBACK_PATH}`,
      botToken: BOT_TOKEN,
      channel: { id: 'C0MEETINGS', name: 'meetings' },
    };
    slack.setApp(app);
    owner = dashboardClient(t);
    expect((await owner.signInAsOwner()).status).toBe(204);
  });
  afterEach(() => slack.setApp(app));
  afterAll(async () => {
    await t.close();
    await slack.close();
  });

  /** Starts an install and lets the fake consent page approve it: the callback path and query Slack sends the browser to. */
  const consent = async (client = owner, events = ['meeting.started', 'recording.ready']): Promise<string> => {
    const started = await client.call('POST', '/integrations/slack/install', { events });
    expect(started.status).toBe(200);
    const approved = await fetch(started.body.authorize_url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(app.redirectUri);
    return back.pathname.replace('/dashboard/api', '') + back.search;
  };
  /** The callback as the browser follows it: where the dashboard sends the user next. */
  const callback = async (pathAndQuery: string, client = owner): Promise<URL> => {
    const res = await client.call('GET', pathAndQuery);
    expect(res.status).toBe(303);
    return new URL(res.headers.get('location')!, t.url);
  };
  const expectRefused = async (pathAndQuery: string, detail: RegExp, client = owner) => {
    const before = databaseSnapshot(t.services);
    const landing = await callback(pathAndQuery, client);
    expect(landing.pathname).toBe('/settings/integrations');
    expect(landing.searchParams.get('slack_error')).toMatch(detail);
    expect(databaseSnapshot(t.services)).toBe(before);
  };

  it('tells the dashboard it is available and sends the browser to Slack’s consent page with a signed state', async () => {
    expect((await owner.call('GET', '/session')).body.slack_install_available).toBe(true);
    const started = await owner.call('POST', '/integrations/slack/install', { events: ['meeting.started'] });
    const url = new URL(started.body.authorize_url);
    expect(url.origin + url.pathname).toBe(slack.authorizeUrl);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: CLIENT_ID,
      scope: 'chat:write,chat:write.public,incoming-webhook',
      redirect_uri: app.redirectUri,
      state: expect.stringMatching(/^[\w-]+\.[\w-]+$/),
    });
    expect((await owner.call('POST', '/integrations/slack/install', { events: ['nope'] })).status).toBe(400);
    const noCsrf = await owner.call('POST', '/integrations/slack/install', { events: ['meeting.started'] }, { 'x-csrf-token': 'wrong' });
    expect(noCsrf.status).toBe(403);
  });

  it('exchanges the code, stores the bot token encrypted with the channel picked on Slack, and posts with it', async () => {
    const landing = await callback(await consent());
    const id = landing.searchParams.get('slack_installed')!;
    expect(id).toMatch(/^int_/);
    expect(slack.exchanges.at(-1)).toEqual({
      client_id: CLIENT_ID,
      code: expect.stringMatching(/^code-/),
      redirect_uri: app.redirectUri,
      ok: true,
    });

    const integration = await owner.call('GET', `/v1/integrations/${id}`);
    expect(integration.body).toMatchObject({
      kind: 'slack',
      channel: 'C0MEETINGS',
      events: ['meeting.started', 'recording.ready'],
      enabled: true,
      status: 'ok',
      secret_hint: 'xoxb-…oken',
    });
    expect(JSON.stringify(integration.body)).not.toContain(BOT_TOKEN);
    expect(databaseSnapshot(t.services)).not.toContain(BOT_TOKEN);

    t.services.meetings.start(seedMeeting(t, { title: 'Installed through OAuth' }));
    const worker = t.deliveryWorker();
    for (let run = 0; run < 3 && slack.posts.length === 0; run++) await worker.runOnce();
    expect(slack.posts).toEqual([
      expect.objectContaining({ token: BOT_TOKEN, channel: 'C0MEETINGS', text: expect.stringContaining('Installed through OAuth') }),
    ]);
    expect(slack.problems).toEqual([]);
  });

  it('refuses a replayed callback, an expired, tampered or missing state, and another session’s state, changing nothing', async () => {
    const used = await consent();
    await callback(used);
    const exchangesBefore = slack.exchanges.length;
    await expectRefused(used, /already used/);

    const late = await consent();
    t.clock.advance(SLACK_STATE_TTL_MS + 1000);
    await expectRefused(late, /invalid or has expired/);

    const fresh = new URL(await consent(), t.url);
    const state = fresh.searchParams.get('state')!;
    const tampered = `${state.slice(0, 10)}${state[10] === 'A' ? 'B' : 'A'}${state.slice(11)}`;
    await expectRefused(`${fresh.pathname}?code=${fresh.searchParams.get('code')}&state=${tampered}`, /invalid or has expired/);
    await expectRefused(`${fresh.pathname}?code=${fresh.searchParams.get('code')}`, /no state/);

    const other = dashboardClient(t);
    expect((await other.signInAsOwner()).status).toBe(204);
    await expectRefused(fresh.pathname + fresh.search, /another dashboard session/, other);
    expect(slack.exchanges.length).toBe(exchangesBefore);
  });

  it('reports Slack’s refusals (a declined consent, a bad code, a wrong client secret) and changes nothing', async () => {
    const declined = new URL(await consent(), t.url);
    await expectRefused(
      `${declined.pathname}?error=access_denied&state=${declined.searchParams.get('state')}`,
      /did not install.*access_denied/,
    );

    const badCode = new URL(await consent(), t.url);
    badCode.searchParams.set('code', 'code-never-issued');
    await expectRefused(badCode.pathname + badCode.search, /Slack refused the install: invalid_code/);

    const wrongSecret = await consent();
    slack.setApp({ ...app, clientSecret: 'another-secret' });
    await expectRefused(wrongSecret, /Slack refused the install: bad_client_secret/);
    expect(slack.exchanges.at(-1)).toMatchObject({ ok: false });
  });

  it('installs without a channel as disabled until the user chooses one', async () => {
    slack.setApp({ ...app, channel: null });
    const id = (await callback(await consent())).searchParams.get('slack_installed')!;
    expect((await owner.call('GET', `/v1/integrations/${id}`)).body).toMatchObject({
      channel: null,
      enabled: false,
      status: 'disabled',
      disabled_reason: CHOOSE_CHANNEL,
    });
    const chosen = await owner.call('PATCH', `/v1/integrations/${id}`, { channel: 'C0MEETINGS' });
    expect(chosen.body).toMatchObject({ channel: 'C0MEETINGS', enabled: true, status: 'ok', disabled_reason: null });
  });

  it('is not offered when the operator configured no Slack app, and needs both settings', async () => {
    const plain = await startTestServer();
    try {
      const c = dashboardClient(plain);
      await c.signInAsOwner();
      expect((await c.call('GET', '/session')).body.slack_install_available).toBe(false);
      const refused = await c.call('POST', '/integrations/slack/install', { events: ['meeting.started'] });
      expect(refused.status).toBe(404);
      expect(refused.body.detail).toMatch(/SVC_SLACK_CLIENT_ID/);
    } finally {
      await plain.close();
    }
    expect(() => loadConfig({ SVC_SLACK_CLIENT_ID: CLIENT_ID })).toThrow(/set both or neither/);
  });
});
