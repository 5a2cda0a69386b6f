import { seedMeeting, type TestServer, startReceiver, type TestReceiver } from '@svc/service/testing';
import { newWebhookSecret, signDelivery } from '@svc/connectors';
import App from '../src';
import type { Subscription, SvcEvent } from '../src/api';
import {
  appTester,
  authDataFor,
  callApi,
  createWebinar,
  expectFieldsCover,
  expectSameShape,
  finishMedia,
  hookOf,
  runMeeting,
  startService,
  zapierHookBundle,
} from './support';

/** How many events the triggers that read more from the API list as samples at most. */
const MAX_LISTED: Partial<Record<string, number>> = { transcript_ready: 10, summary_ready: 10 };

const TRIGGERS = [
  ['meeting_started', 'meeting.started'],
  ['meeting_ended', 'meeting.ended'],
  ['recording_ready', 'recording.ready'],
  ['transcript_ready', 'transcript.ready'],
  ['summary_ready', 'summary.ready'],
  ['registration_created', 'registration.created'],
] as const;

type TriggerKey = (typeof TRIGGERS)[number][0];

describe('event triggers', () => {
  let t: TestServer;
  let key: string;
  let auth: { base_url: string; api_key: string };
  let worker: ReturnType<TestServer['deliveryWorker']>;
  let api: ReturnType<typeof callApi>;
  let registrations = 0;

  const register = async (slug: string) => {
    registrations += 1;
    const res = await api('POST', `/webinars/${slug}/registrations`, {
      email: `person${registrations}@example.com`,
      name: `Person ${registrations}`,
    });
    expect(res.status).toBe(201);
  };

  const produce: Record<TriggerKey, () => Promise<void>> = {
    meeting_started: async () => void t.services.meetings.start(seedMeeting(t, { title: 'Hooked start' })),
    meeting_ended: async () => void (await runMeeting(t, key, 'Hooked end')),
    recording_ready: async () => finishMedia(t, seedMeeting(t, { title: 'Hooked recording' }).id),
    transcript_ready: async () => finishMedia(t, seedMeeting(t, { title: 'Hooked transcript' }).id),
    summary_ready: async () => finishMedia(t, seedMeeting(t, { title: 'Hooked summary' }).id),
    registration_created: () => register('zap-alpha'),
  };

  const newest = async (type: string, query = ''): Promise<SvcEvent> =>
    (await api('GET', `/triggers/${type}?limit=1${query}`)).body.data[0];

  const deliverOne = async (receiver: TestReceiver) => {
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    return receiver.requests[0]!;
  };

  beforeAll(async () => {
    t = await startService();
    key = t.key();
    auth = authDataFor(t, key);
    api = callApi(t, key);
    worker = t.deliveryWorker();
    for (const title of ['Kickoff', 'Retro']) finishMedia(t, await runMeeting(t, key, title));
    await createWebinar(t, key, 'zap-alpha', 'Alpha launch');
    await createWebinar(t, key, 'zap-beta', 'Beta launch');
    for (const slug of ['zap-alpha', 'zap-beta', 'zap-alpha']) await register(slug);
  });
  afterAll(() => t.close());

  describe.each(TRIGGERS)('%s (%s)', (triggerKey, type) => {
    const trigger = App.triggers[triggerKey];
    const hook = hookOf(triggerKey);

    it('lists the events of its type newest first, exactly as the polling feed has them', async () => {
      const events = (await appTester(hook.performList, { authData: auth, meta: { limit: 100 } })) as SvcEvent[];
      const feed = (await api('GET', `/triggers/${type}?limit=100`)).body.data as SvcEvent[];
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events).toHaveLength(Math.min(feed.length, MAX_LISTED[triggerKey] ?? 100));
      expect(events).toMatchObject(feed.slice(0, events.length));
      expect(events.every((event) => event.type === type)).toBe(true);
      expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
      expect(events.map((event) => event.id)).toEqual(
        events
          .map((event) => event.id)
          .sort()
          .reverse(),
      );
      expect(await appTester(hook.performList, { authData: auth, meta: { limit: 1 } })).toEqual([events[0]]);
    });

    it('has a sample and output fields that match what it hands the Zap for a real event', async () => {
      const [real] = (await appTester(hook.performList, { authData: auth, meta: { limit: 1 } })) as SvcEvent[];
      expectSameShape(trigger.operation.sample, real);
      expectFieldsCover(trigger.operation.outputFields as { key: string }[], real);
    });

    it('subscribes a webhook endpoint, returns the event of a signed delivery, and unsubscribes', async () => {
      const receiver = await startReceiver();
      try {
        const subscription = (await appTester(hook.performSubscribe, {
          authData: auth,
          targetUrl: receiver.url,
          inputData: {},
        })) as Subscription;
        expect(subscription).toEqual({ id: expect.stringMatching(/^whk_/), secret: expect.stringMatching(/^whsec_/) });
        expect((await api('GET', `/webhook-endpoints/${subscription.id}`)).body).toMatchObject({
          url: receiver.url,
          events: [type],
          enabled: true,
          description: `Zapier: ${trigger.display.label}`,
        });

        await produce[triggerKey]();
        const delivered = await deliverOne(receiver);
        const result = await appTester(hook.perform, {
          authData: auth,
          subscribeData: subscription,
          inputData: {},
          ...zapierHookBundle(delivered),
        });
        expect(result).toMatchObject([await newest(type)]);
        expect(result).toEqual(await appTester(hook.performList, { authData: auth, meta: { limit: 1 } }));

        await appTester(hook.performUnsubscribe, { authData: auth, subscribeData: subscription });
        expect((await api('GET', `/webhook-endpoints/${subscription.id}`)).status).toBe(404);
        await expect(appTester(hook.performUnsubscribe, { authData: auth, subscribeData: subscription })).resolves.toEqual({
          id: subscription.id,
        });
      } finally {
        await receiver.close();
      }
    });
  });

  describe('deliveries that svc did not sign', () => {
    const hook = hookOf('meeting_ended');
    let subscription: Subscription;
    let genuine: ReturnType<typeof zapierHookBundle>;

    beforeAll(async () => {
      const receiver = await startReceiver();
      subscription = (await appTester(hook.performSubscribe, { authData: auth, targetUrl: receiver.url })) as Subscription;
      await runMeeting(t, key, 'Verified end');
      genuine = zapierHookBundle(await deliverOne(receiver));
      await appTester(hook.performUnsubscribe, { authData: auth, subscribeData: subscription });
      await receiver.close();
    });

    const performWith = (rawRequest: { headers: Record<string, string>; content: string }) =>
      appTester(hook.perform, { authData: auth, subscribeData: subscription, rawRequest, cleanedRequest: JSON.parse(rawRequest.content) });

    const resigned = (opts: { secret: string; timestamp: number }) => {
      const event = JSON.parse(genuine.rawRequest!.content!) as SvcEvent;
      const headers = signDelivery({
        secrets: [opts.secret],
        eventId: event.id,
        eventType: event.type,
        deliveryId: 'dlv_forged',
        timestamp: opts.timestamp,
        rawBody: genuine.rawRequest!.content!,
      });
      return Object.fromEntries(Object.entries(headers).map(([name, value]) => [`Http-${name}`, value]));
    };

    it('accepts the genuine delivery', async () => {
      expect(await performWith({ headers: genuine.rawRequest!.headers!, content: genuine.rawRequest!.content! })).toEqual([
        genuine.cleanedRequest,
      ]);
    });

    it.each([
      [
        'a changed body',
        () => ({ headers: genuine.rawRequest!.headers!, content: genuine.rawRequest!.content!.replace('Verified end', 'Forged end') }),
        'bad_signature',
      ],
      [
        'another secret',
        () => ({
          headers: resigned({ secret: newWebhookSecret(), timestamp: Math.floor(Date.now() / 1000) }),
          content: genuine.rawRequest!.content!,
        }),
        'bad_signature',
      ],
      [
        'a replayed, 10-minute-old signature',
        () => ({
          headers: resigned({ secret: subscription.secret, timestamp: Math.floor(Date.now() / 1000) - 600 }),
          content: genuine.rawRequest!.content!,
        }),
        'stale_timestamp',
      ],
      [
        'no signature headers',
        () => ({ headers: { 'Content-Type': 'application/json' }, content: genuine.rawRequest!.content! }),
        'missing_header',
      ],
    ])('halts on %s', async (_label, request, reason) => {
      const run = performWith(request());
      await expect(run).rejects.toMatchObject({ name: 'HaltedError' });
      await expect(run).rejects.toThrow(new RegExp(`not a genuine svc delivery \\(${reason}\\)`));
    });
  });

  describe('registration_created with a webinar chosen', () => {
    const hook = hookOf('registration_created');

    it('lists only that webinar’s registrations, as the feed filtered by slug has them', async () => {
      const events = (await appTester(hook.performList, {
        authData: auth,
        inputData: { slug: 'zap-beta' },
        meta: { limit: 100 },
      })) as SvcEvent[];
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((event) => (event.data.webinar as { slug: string }).slug === 'zap-beta')).toBe(true);
      expect(events).toEqual((await api('GET', '/triggers/registration.created?slug=zap-beta&limit=100')).body.data);
    });

    it('returns a delivered registration for that webinar and nothing for another one', async () => {
      const receiver = await startReceiver();
      try {
        const subscription = (await appTester(hook.performSubscribe, {
          authData: auth,
          targetUrl: receiver.url,
          inputData: { slug: 'zap-beta' },
        })) as Subscription;
        await register('zap-alpha');
        const alpha = zapierHookBundle(await deliverOne(receiver));
        receiver.requests.length = 0;
        await register('zap-beta');
        const beta = zapierHookBundle(await deliverOne(receiver));
        const perform = (delivery: typeof alpha) =>
          appTester(hook.perform, { authData: auth, subscribeData: subscription, inputData: { slug: 'zap-beta' }, ...delivery });
        expect(await perform(alpha)).toEqual([]);
        expect(await perform(beta)).toEqual([await newest('registration.created', '&slug=zap-beta')]);
        await appTester(hook.performUnsubscribe, { authData: auth, subscribeData: subscription });
      } finally {
        await receiver.close();
      }
    });
  });
});
