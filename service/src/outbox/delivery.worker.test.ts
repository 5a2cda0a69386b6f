import { verifyWebhook } from '@svc/connectors';
import { seedMeeting } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';
import { startReceiver, type TestReceiver } from '../testing/receiver';
import type { DeliveryWorker } from './delivery.worker';
import type { SendResult } from './destination';
import { httpSender, type Sender } from './http-sender';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A real sender that holds every answer until `release` (in `order`, if given) and answers at once after that. */
function holdingSender() {
  const real = httpSender({ timeoutMs: 5 * SECOND, allowPrivateTargets: true });
  const held: { url: string; result: SendResult; release: (result: SendResult) => void }[] = [];
  let holding = true;
  const send: Sender = (url, headers, body) =>
    real(url, headers, body).then((result) =>
      holding ? new Promise<SendResult>((release) => held.push({ url, result, release })) : result,
    );
  return {
    send,
    held,
    /** Answers the oldest held attempt (to a URL containing `to`, if given), and goes on holding the others. */
    releaseOldest(to = '') {
      const [oldest] = held.splice(
        held.findIndex((h) => h.url.includes(to)),
        1,
      );
      oldest!.release(oldest!.result);
    },
    release(order?: (a: SendResult, b: SendResult) => number) {
      holding = false;
      if (order) held.sort((a, b) => order(a.result, b.result));
      for (const h of held.splice(0)) h.release(h.result);
    },
  };
}

/** Waits (bounded) until `condition` holds. */
async function waitUntil(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('DeliveryWorker', () => {
  let t: TestServer;
  let key: string;
  let receiver: TestReceiver;
  let worker: DeliveryWorker;
  let jitter = 0.5;
  beforeEach(async () => {
    t = await startTestServer({
      SVC_ALLOW_INSECURE_WEBHOOKS: 'true',
      SVC_WEBHOOK_TIMEOUT_MS: '300',
      SVC_WEBHOOK_CONCURRENCY: '4',
      SVC_WEBHOOK_ENDPOINT_CONCURRENCY: '2',
    });
    key = t.key();
    jitter = 0.5;
    worker = t.deliveryWorker({ random: () => jitter });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await worker.stop();
    await receiver.close();
    await t.close();
  });

  async function endpoint(events = ['meeting.started'], url = receiver.url): Promise<{ id: string; secret: string }> {
    const res = await t.request('POST', '/api/v1/public/webhook-endpoints', { key, body: { url, events } });
    expect(res.status).toBe(201);
    return res.body;
  }
  const startMeeting = () => t.services.meetings.start(seedMeeting(t));
  /** Replaces the worker with one whose answers are held until released. */
  const holdAnswers = async () => {
    const hold = holdingSender();
    await worker.stop();
    worker = t.deliveryWorker({ random: () => jitter, send: hold.send });
    return hold;
  };
  const deliveriesOf = async (endpointId: string) =>
    (await t.request('GET', `/api/v1/public/webhook-endpoints/${endpointId}/deliveries?limit=100`, { key })).body.data;
  const verify = (i: number, secrets: string | string[]) =>
    verifyWebhook({
      rawBody: receiver.requests[i]!.rawBody,
      headers: receiver.requests[i]!.headers as Record<string, string>,
      secrets,
      now: () => t.clock.now(),
    });

  it('delivers a signed event once, with the event id as webhook-id and the delivery id as X-Svc-Delivery', async () => {
    const ep = await endpoint();
    const meeting = startMeeting();
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const event = verify(0, ep.secret);
    expect(event).toMatchObject({ type: 'meeting.started', data: { meeting: { id: meeting.id, status: 'live' } } });
    const [delivery] = await deliveriesOf(ep.id);
    const headers = receiver.requests[0]!.headers;
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-svc-event': 'meeting.started',
      'x-svc-delivery': delivery.id,
      'x-svc-timestamp': String(Math.floor(t.clock.now() / 1000)),
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(t.clock.now() / 1000)),
    });
    expect(JSON.parse(receiver.requests[0]!.rawBody.toString())).toEqual(
      (await t.request('GET', '/api/v1/public/triggers/meeting.started?limit=1', { key })).body.data[0],
    );
    expect(delivery).toMatchObject({ event_id: event.id, status: 'succeeded', attempt_count: 1, next_attempt_at: null });
    expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, status_code: 200, error: null, next_attempt_at: null })]);
    t.clock.advance(DAY);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.requests).toHaveLength(1);
  });

  it('retries a failing receiver 5 times in all: now, 5 s, 5 min, 30 min, 2 h later, each signed afresh', async () => {
    receiver.reply = () => ({ status: 500, body: 'boom' });
    const ep = await endpoint();
    startMeeting();
    const start = t.clock.now();
    const gaps = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR];
    expect(await worker.runOnce()).toBe(1);
    let at = start;
    for (const gap of gaps) {
      t.clock.set(at + gap - 1);
      expect(await worker.runOnce()).toBe(0);
      t.clock.set(at + gap);
      expect(await worker.runOnce()).toBe(1);
      at += gap;
    }
    t.clock.advance(DAY);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.requests).toHaveLength(5);
    const timestamps = receiver.requests.map((r) => Number(r.headers['x-svc-timestamp']));
    expect(new Set(timestamps).size).toBe(5);
    const [delivery] = await deliveriesOf(ep.id);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 5, next_attempt_at: null });
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 500, 500]);
    expect(delivery.attempts[0]).toMatchObject({ response_body: 'boom', next_attempt_at: new Date(start + 5 * SECOND).toISOString() });
    expect(delivery.attempts[4].next_attempt_at).toBeNull();
    expect(delivery.attempts.every((a: { duration_ms: number }) => a.duration_ms >= 0)).toBe(true);
  });

  it('adds up to ±10 % jitter to the schedule', async () => {
    receiver.reply = () => ({ status: 500 });
    const ep = await endpoint();
    jitter = 0;
    startMeeting();
    await worker.runOnce();
    expect((await deliveriesOf(ep.id))[0].next_attempt_at).toBe(new Date(t.clock.now() + 4_500).toISOString());
    jitter = 1;
    t.clock.advance(4_500);
    await worker.runOnce();
    expect((await deliveriesOf(ep.id))[0].next_attempt_at).toBe(new Date(t.clock.now() + 330_000).toISOString());
  });

  it('records a timeout as an error and retries', async () => {
    receiver.reply = () => ({ hang: true });
    const ep = await endpoint();
    startMeeting();
    await worker.runOnce();
    const [delivery] = await deliveriesOf(ep.id);
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: 'no answer within 300 ms' });
    expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(290);
  });

  it('honours Retry-After on 429 and 503, but never retries sooner than the schedule', async () => {
    const ep = await endpoint();
    const answers = [
      { status: 429, headers: { 'Retry-After': '120' } },
      { status: 503, headers: { 'Retry-After': new Date(t.clock.now() + 5 * SECOND + 2 * HOUR).toUTCString() } },
      { status: 429, headers: { 'Retry-After': '1' } },
    ];
    receiver.reply = () => answers.shift() ?? { status: 200 };
    startMeeting();
    await worker.runOnce();
    expect((await deliveriesOf(ep.id))[0].next_attempt_at).toBe(new Date(t.clock.now() + 120 * SECOND).toISOString());
    t.clock.advance(120 * SECOND);
    await worker.runOnce();
    const afterSecond = new Date((await deliveriesOf(ep.id))[0].next_attempt_at).getTime() - t.clock.now();
    expect(afterSecond).toBeGreaterThan(HOUR);
    t.clock.advance(afterSecond);
    await worker.runOnce();
    expect((await deliveriesOf(ep.id))[0].next_attempt_at).toBe(new Date(t.clock.now() + 30 * MINUTE).toISOString());
  });

  it('disables the endpoint on 410 Gone and queues nothing more for it until it is enabled again', async () => {
    receiver.reply = () => ({ status: 410 });
    const ep = await endpoint();
    startMeeting();
    await worker.runOnce();
    const endpointNow = (await t.request('GET', `/api/v1/public/webhook-endpoints/${ep.id}`, { key })).body;
    expect(endpointNow).toMatchObject({ enabled: false, disabled_reason: 'the endpoint answered 410 Gone' });
    expect((await deliveriesOf(ep.id))[0]).toMatchObject({ status: 'failed', attempt_count: 1 });
    startMeeting();
    expect(await deliveriesOf(ep.id)).toHaveLength(1);
    receiver.reply = () => ({ status: 200 });
    await t.request('PATCH', `/api/v1/public/webhook-endpoints/${ep.id}`, { key, body: { enabled: true } });
    startMeeting();
    await worker.runOnce();
    expect((await deliveriesOf(ep.id))[0].status).toBe('succeeded');
  });

  it('keeps an endpoint disabled by 410 Gone when a later attempt recorded in the same batch fails otherwise', async () => {
    // Both answers are held until both arrived, so the worker records the two attempts together in one transaction.
    const hold = await holdAnswers();
    receiver.reply = () => ({ status: receiver.requests.length === 1 ? 410 : 500 });
    const ep = await endpoint();
    startMeeting();
    startMeeting();
    const attempted = worker.runOnce();
    await waitUntil(() => hold.held.length === 2, 'both answers');
    hold.release((a, b) => Number(b.statusCode === 410) - Number(a.statusCode === 410));
    expect(await attempted).toBe(2);
    expect(receiver.requests).toHaveLength(2);
    const endpointNow = (await t.request('GET', `/api/v1/public/webhook-endpoints/${ep.id}`, { key })).body;
    expect(endpointNow).toMatchObject({ enabled: false, disabled_reason: 'the endpoint answered 410 Gone' });
    const deliveries = await deliveriesOf(ep.id);
    expect(deliveries.map((d: { attempts: { status_code: number }[] }) => d.attempts[0]!.status_code).sort()).toEqual([410, 500]);
  });

  it('records the other attempts of a batch when one delivery was deleted with its endpoint while it was attempted', async () => {
    const hold = await holdAnswers();
    const deleted = await endpoint();
    const kept = await endpoint();
    startMeeting();
    const attempted = worker.runOnce();
    await waitUntil(() => hold.held.length === 2, 'both attempts under way');
    expect((await t.request('DELETE', `/api/v1/public/webhook-endpoints/${deleted.id}`, { key })).status).toBe(204);
    hold.release();
    expect(await attempted).toBe(2);
    expect(receiver.requests).toHaveLength(2);
    expect(await deliveriesOf(kept.id)).toEqual([expect.objectContaining({ status: 'succeeded', attempt_count: 1 })]);
    expect(t.services.db.prepare("SELECT count(*) FROM deliveries WHERE status = 'delivering'").pluck().get()).toBe(0);
  });

  it('delivers a backlog through the running worker exactly once, each delivery with one attempt', async () => {
    const ep = await endpoint();
    for (let i = 0; i < 30; i++) startMeeting();
    worker.start();
    await waitUntil(async () => (await deliveriesOf(ep.id)).every((d: { status: string }) => d.status === 'succeeded'), 'every delivery');
    const deliveries = await deliveriesOf(ep.id);
    expect(deliveries).toHaveLength(30);
    expect(deliveries.every((d: { attempts: unknown[] }) => d.attempts.length === 1)).toBe(true);
    const sent = receiver.requests.map((r) => r.headers['x-svc-delivery']);
    expect(new Set(sent).size).toBe(30);
    expect(sent).toHaveLength(30);
  });

  it('shares the pool in turns between the backlogged endpoints of an organization with more of them than the pool has slots', async () => {
    // The pool has 4 slots, an endpoint may take 2: five endpoints with a backlog of four deliveries each.
    const names = ['a', 'b', 'c', 'd', 'e'];
    for (const name of names) await endpoint(['meeting.started'], `${receiver.url}?to=${name}`);
    for (let i = 0; i < 4; i++) {
      startMeeting();
      t.clock.advance(1);
    }
    worker.start();
    await waitUntil(() => receiver.requests.length === 20, 'every delivery');
    const order = receiver.requests.map((r) => new URL(r.path, 'http://receiver').searchParams.get('to'));
    // Each endpoint's first delivery (the oldest due ones) goes out before any endpoint's third.
    const firstOf = names.map((name) => order.indexOf(name));
    expect(Math.max(...firstOf)).toBeLessThan(8);
    expect(order.filter((name) => name === 'e')).toHaveLength(4);
  });

  it('sends at most one more delivery per attempt under way once its endpoint is disabled, and the rest after it is enabled again', async () => {
    const hold = await holdAnswers();
    const ep = await endpoint();
    for (let i = 0; i < 8; i++) startMeeting();
    worker.start();
    // The endpoint's share of the pool (2) is under way, and as many are reserved to follow them.
    await waitUntil(() => hold.held.length === 2, 'two attempts under way');
    expect((await t.request('PATCH', `/api/v1/public/webhook-endpoints/${ep.id}`, { key, body: { enabled: false } })).status).toBe(200);
    const succeeded = t.services.db.prepare("SELECT count(*) FROM deliveries WHERE status = 'succeeded'").pluck();
    // The first answer is followed by one reserved delivery; recording that answer gives up the rest of the reserve.
    hold.releaseOldest();
    await waitUntil(() => succeeded.get() === 1, 'the first answer recorded');
    hold.release();
    const delivering = t.services.db.prepare("SELECT count(*) FROM deliveries WHERE status = 'delivering'").pluck();
    await waitUntil(() => delivering.get() === 0, 'no delivery being attempted');
    expect(receiver.requests).toHaveLength(3);
    const parked = (await deliveriesOf(ep.id)).filter((d: { status: string }) => d.status === 'pending');
    expect(parked).toHaveLength(5);
    expect(parked.every((d: { next_attempt_at: string | null }) => d.next_attempt_at === null)).toBe(true);

    expect((await t.request('PATCH', `/api/v1/public/webhook-endpoints/${ep.id}`, { key, body: { enabled: true } })).status).toBe(200);
    worker.wake();
    await waitUntil(() => receiver.requests.length === 8 && delivering.get() === 0, 'every delivery');
    expect(new Set(receiver.requests.map((r) => r.headers['x-svc-delivery'])).size).toBe(8);
    expect((await deliveriesOf(ep.id)).every((d: { status: string }) => d.status === 'succeeded')).toBe(true);
  });

  it('sends at most one more delivery per attempt under way once its endpoint is deleted', async () => {
    const hold = await holdAnswers();
    const deleted = await endpoint(['meeting.started'], `${receiver.url}?to=deleted`);
    const kept = await endpoint(['meeting.started'], `${receiver.url}?to=kept`);
    for (let i = 0; i < 4; i++) startMeeting();
    worker.start();
    // Each endpoint has its share (2) under way and 2 reserved.
    await waitUntil(() => hold.held.length === 4, 'four attempts under way');
    expect((await t.request('DELETE', `/api/v1/public/webhook-endpoints/${deleted.id}`, { key })).status).toBe(204);
    // One answer of each endpoint ends in the same turn, so both are recorded in one batch: the kept endpoint's
    // success shows that the batch which finds the other endpoint gone has been recorded.
    hold.releaseOldest('to=deleted');
    hold.releaseOldest('to=kept');
    const keptSucceeded = async () => (await deliveriesOf(kept.id)).filter((d: { status: string }) => d.status === 'succeeded').length;
    await waitUntil(async () => (await keptSucceeded()) >= 1, "the kept endpoint's first answer recorded");
    hold.release();
    await waitUntil(async () => (await keptSucceeded()) === 4, 'every delivery of the kept endpoint');
    expect(receiver.requests.filter((r) => r.path.includes('to=deleted'))).toHaveLength(3);
    expect(t.services.db.prepare('SELECT count(*) FROM deliveries WHERE destination_id = ?').pluck().get(deleted.id)).toBe(0);
  });

  it('hands the deliveries it reserved back to the schedule when it stops', async () => {
    const hold = await holdAnswers();
    const ep = await endpoint();
    for (let i = 0; i < 6; i++) startMeeting();
    worker.start();
    await waitUntil(() => hold.held.length === 2, 'two attempts under way');
    const stopped = worker.stop();
    hold.release();
    await stopped;
    const byStatus = t.services.db
      .prepare('SELECT status, count(*) AS n, count(next_attempt_at) AS due FROM deliveries GROUP BY status ORDER BY status')
      .all();
    expect(byStatus).toEqual([
      { status: 'pending', n: 4, due: 4 },
      { status: 'succeeded', n: 2, due: 0 },
    ]);
    worker = t.deliveryWorker({ random: () => jitter });
    expect(await worker.runOnce()).toBe(2);
    expect(await worker.runOnce()).toBe(2);
    expect(new Set(receiver.requests.map((r) => r.headers['x-svc-delivery'])).size).toBe(6);
    expect((await deliveriesOf(ep.id)).every((d: { status: string }) => d.status === 'succeeded')).toBe(true);
  });

  it('parks the pending deliveries of a disabled endpoint and sends them once it is enabled again', async () => {
    receiver.reply = () => ({ status: 500 });
    const ep = await endpoint();
    startMeeting();
    await worker.runOnce();
    await t.request('PATCH', `/api/v1/public/webhook-endpoints/${ep.id}`, { key, body: { enabled: false } });
    t.clock.advance(DAY);
    expect(await worker.runOnce()).toBe(0);
    expect((await deliveriesOf(ep.id))[0]).toMatchObject({ status: 'pending', next_attempt_at: null });
    receiver.reply = () => ({ status: 200 });
    await t.request('PATCH', `/api/v1/public/webhook-endpoints/${ep.id}`, { key, body: { enabled: true } });
    expect(await worker.runOnce()).toBe(1);
    expect((await deliveriesOf(ep.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it('disables an endpoint whose every attempt failed for 5 days; a success in between resets the clock', async () => {
    const ep = await endpoint();
    receiver.reply = () => ({ status: 500 });
    startMeeting();
    await worker.runOnce();
    t.clock.advance(3 * DAY);
    receiver.reply = () => ({ status: 200 });
    await worker.runOnce();
    receiver.reply = () => ({ status: 500 });
    t.clock.advance(DAY);
    startMeeting();
    await worker.runOnce();
    t.clock.advance(5 * DAY - 1);
    startMeeting();
    await worker.runOnce();
    expect((await t.request('GET', `/api/v1/public/webhook-endpoints/${ep.id}`, { key })).body.enabled).toBe(true);
    t.clock.advance(1);
    startMeeting();
    await worker.runOnce();
    expect((await t.request('GET', `/api/v1/public/webhook-endpoints/${ep.id}`, { key })).body).toMatchObject({
      enabled: false,
      disabled_reason: 'every attempt failed for 5 days',
    });
  });

  it('does not follow redirects and keeps only the first 1 KB of an answer', async () => {
    const ep = await endpoint();
    receiver.reply = (req) =>
      req.path === '/hook' ? { status: 302, headers: { Location: '/elsewhere' }, body: 'x'.repeat(5000) } : { status: 200 };
    startMeeting();
    await worker.runOnce();
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook']);
    const attempt = (await deliveriesOf(ep.id))[0].attempts[0];
    expect(attempt.status_code).toBe(302);
    expect(attempt.response_body).toHaveLength(1024);
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const ep = await endpoint();
    const rotated = (await t.request('POST', `/api/v1/public/webhook-endpoints/${ep.id}/rotate-secret`, { key })).body;
    startMeeting();
    await worker.runOnce();
    expect(receiver.requests[0]!.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64},sha256=[0-9a-f]{64}$/);
    expect(verify(0, ep.secret).type).toBe('meeting.started');
    expect(verify(0, rotated.secret).type).toBe('meeting.started');
    t.clock.advance(DAY);
    startMeeting();
    await worker.runOnce();
    expect(receiver.requests[1]!.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify(1, rotated.secret).type).toBe('meeting.started');
    expect(() => verify(1, ep.secret)).toThrow(/no signature matches/);
  });

  it('redelivers on request as a new delivery of the same event', async () => {
    const ep = await endpoint();
    startMeeting();
    await worker.runOnce();
    const [first] = await deliveriesOf(ep.id);
    const res = await t.request('POST', `/api/v1/public/deliveries/${first.id}/redeliver`, { key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ event_id: first.event_id, status: 'pending', attempt_count: 0 });
    await worker.runOnce();
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([first.event_id, first.event_id]);
    expect(receiver.requests[1]!.headers['x-svc-delivery']).toBe(res.body.id);
    expect((await t.request('POST', '/api/v1/public/deliveries/dlv_00000000000000000000000000/redeliver', { key })).status).toBe(404);
  });

  it('makes deliveries interrupted by a crash due again when it starts', async () => {
    const ep = await endpoint();
    startMeeting();
    const [pending] = await deliveriesOf(ep.id);
    expect(t.services.deliveries.claimDue(ep.id, t.clock.now(), 1, t.clock.now() + HOUR)).toEqual([
      expect.objectContaining({ id: pending.id, status: 'delivering', event_type: 'meeting.started' }),
    ]);
    expect(await worker.runOnce()).toBe(0);
    worker.start();
    await worker.stop();
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
  });

  it('keeps delivering to other endpoints while one endpoint is stuck', async () => {
    const stuck = await startReceiver(() => ({ hang: true }));
    try {
      await endpoint(['meeting.started'], stuck.url);
      await endpoint(['meeting.started']);
      for (let i = 0; i < 6; i++) startMeeting();
      worker.start();
      for (let i = 0; i < 200 && receiver.requests.length < 6; i++) await new Promise((r) => setTimeout(r, 10));
      // Every delivery to the healthy endpoint went out while the stuck one still holds its
      // per-endpoint share (2) of the pool (4) without answering.
      expect(receiver.requests).toHaveLength(6);
      expect(stuck.requests).toHaveLength(2);
    } finally {
      await worker.stop();
      await stuck.close();
    }
  });
});
