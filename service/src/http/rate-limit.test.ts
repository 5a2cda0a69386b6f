import { ManualClock } from '../shared/clock';
import { startTestServer, type TestServer } from '../testing/harness';
import { RateLimiter } from './rate-limit';

describe('RateLimiter windows (fake clock)', () => {
  const limits = { perSecond: 20, perMinute: 120 };
  let clock: ManualClock;
  let limiter: RateLimiter;
  beforeEach(() => {
    clock = new ManualClock(0);
    limiter = new RateLimiter(limits, clock);
  });
  const burst = (n: number, bucket = 'k') => Array.from({ length: n }, () => limiter.hit(bucket).allowed);

  it('allows 20 in one second, refuses the 21st, and allows again once the oldest is 1 s old', () => {
    expect(burst(20).every(Boolean)).toBe(true);
    const refused = limiter.hit('k');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(1000);
    clock.advance(999);
    expect(limiter.hit('k').allowed).toBe(false);
    clock.advance(1);
    expect(limiter.hit('k').allowed).toBe(true);
  });

  it('slides the second window: 20 spread over 900 ms free slots one by one', () => {
    for (let i = 0; i < 20; i++) {
      expect(limiter.hit('k').allowed).toBe(true);
      clock.advance(45);
    }
    // now = 900 ms; the first request (t=0) leaves the window at 1000 ms.
    expect(limiter.hit('k').allowed).toBe(false);
    clock.set(1000);
    expect(limiter.hit('k').allowed).toBe(true);
    expect(limiter.hit('k').allowed).toBe(false);
    clock.set(1045);
    expect(limiter.hit('k').allowed).toBe(true);
  });

  it('allows 120 in any minute and refuses the 121st until the oldest is 60 s old', () => {
    for (let s = 0; s < 6; s++) {
      expect(burst(20).every(Boolean)).toBe(true);
      clock.advance(1000);
    }
    // 120 accepted between t=0 and t=5 s; at t=6 s the second window is empty but the minute is full.
    const refused = limiter.hit('k');
    expect(refused.allowed).toBe(false);
    expect(refused.remainingMinute).toBe(0);
    expect(refused.retryAfterMs).toBe(54_000);
    expect(refused.minuteResetMs).toBe(54_000);
    clock.set(59_999);
    expect(limiter.hit('k').allowed).toBe(false);
    clock.set(60_000);
    const burstAfter = burst(21);
    expect(burstAfter.filter(Boolean)).toHaveLength(20);
  });

  it('does not count refused requests against the budget', () => {
    burst(20);
    burst(100);
    clock.advance(1000);
    expect(burst(20).every(Boolean)).toBe(true);
  });

  it('reports remaining requests and keeps buckets apart', () => {
    const first = limiter.hit('a');
    expect(first.remainingMinute).toBe(119);
    expect(first.remainingSecond).toBe(19);
    burst(20, 'a');
    expect(limiter.hit('b').allowed).toBe(true);
  });

  it('applies per-key overrides', () => {
    const hits = Array.from({ length: 100 }, () => limiter.hit('big', { perSecond: 100, perMinute: 1000 }).allowed);
    expect(hits.every(Boolean)).toBe(true);
    expect(limiter.hit('big', { perSecond: 100, perMinute: 1000 }).allowed).toBe(false);
  });
});

describe('rate limit over HTTP (fake clock)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('sends the headers on every response and 429 with Retry-After on the 21st request in a second', async () => {
    const key = t.key(undefined, { rateLimited: true });
    for (let i = 1; i <= 20; i++) {
      const res = await t.request('GET', '/api/v1/public/me', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('120');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(120 - i));
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBe(Math.ceil((t.clock.now() + 60_000) / 1000));
      expect(res.headers.get('ratelimit-policy')).toBe('"burst";q=20;w=1, "minute";q=120;w=60');
      expect(res.headers.get('ratelimit')).toBe(`"burst";r=${20 - i};t=1, "minute";r=${120 - i};t=60`);
    }
    const limited = await t.request('GET', '/api/v1/public/me', { key });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('100');
    t.clock.advance(1000);
    expect((await t.request('GET', '/api/v1/public/me', { key })).status).toBe(200);
  });

  it('limits requests without a valid key per client address, and still answers 401 within budget', async () => {
    t.clock.advance(120_000);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await t.request('GET', '/api/v1/public/me', { key: 'svc_sk_wrong' });
      expect(res.headers.get('x-ratelimit-limit')).toBe('120');
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it('gives a key with a raised limit its own budget, reported in the headers', async () => {
    t.clock.advance(120_000);
    const { key } = t.services.keys.create({
      userId: t.owner.id,
      name: 'partner',
      scopes: [],
      rateLimitPerMinute: 600,
      rateLimitPerSecond: 50,
    });
    for (let i = 0; i < 50; i++) expect((await t.request('GET', '/api/v1/public/me', { key })).status).toBe(200);
    const limited = await t.request('GET', '/api/v1/public/me', { key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('600');
  });
});
