import type { RequestHandler } from 'express';
import type { RateLimitSettings } from '../config';
import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';

const SECOND = 1_000;
const MINUTE = 60_000;
const SWEEP_EVERY = 10_000;

/** The outcome of one request against its budget. */
export interface RateDecision {
  allowed: boolean;
  limits: RateLimitSettings;
  /** Requests left in the minute window after this one. */
  remainingMinute: number;
  remainingSecond: number;
  /** Milliseconds until the minute window frees a slot. */
  minuteResetMs: number;
  secondResetMs: number;
  /** Milliseconds until a request would be allowed again (0 when allowed). */
  retryAfterMs: number;
}

/** Timestamps of accepted requests inside one window, oldest first. */
class Window {
  private stamps: number[] = [];
  private head = 0;

  constructor(private readonly span: number) {}

  trim(now: number): void {
    while (this.head < this.stamps.length && this.stamps[this.head]! <= now - this.span) this.head++;
    if (this.head > 1024 && this.head * 2 > this.stamps.length) {
      this.stamps = this.stamps.slice(this.head);
      this.head = 0;
    }
  }

  get count(): number {
    return this.stamps.length - this.head;
  }

  /** When the oldest request still counted leaves the window (now, if none is counted). */
  freesAt(now: number): number {
    return this.count === 0 ? now : this.stamps[this.head]! + this.span;
  }

  /** When the window will hold fewer than `limit` requests. */
  belowLimitAt(limit: number, now: number): number {
    const over = this.count - limit;
    return over < 0 ? now : this.stamps[this.head + over]! + this.span;
  }

  push(now: number): void {
    this.stamps.push(now);
  }
}

/**
 * Exact sliding-window limiter: at most `perSecond` accepted requests in any 1 s and `perMinute`
 * in any 60 s, per bucket (a key id, or a client address for unauthenticated calls).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { second: Window; minute: Window }>();
  private hits = 0;

  constructor(
    private readonly defaults: RateLimitSettings,
    private readonly clock: Clock,
  ) {}

  /** Counts one request for `bucket` if its budget allows it. */
  hit(bucket: string, overrides: Partial<RateLimitSettings> = {}): RateDecision {
    const limits = { ...this.defaults, ...overrides };
    const now = this.clock.now();
    if (++this.hits % SWEEP_EVERY === 0) this.sweep(now);
    let state = this.buckets.get(bucket);
    if (!state) {
      state = { second: new Window(SECOND), minute: new Window(MINUTE) };
      this.buckets.set(bucket, state);
    }
    const { second, minute } = state;
    second.trim(now);
    minute.trim(now);
    const allowed = second.count < limits.perSecond && minute.count < limits.perMinute;
    if (allowed) {
      second.push(now);
      minute.push(now);
    }
    const retryAt = allowed ? now : Math.max(second.belowLimitAt(limits.perSecond, now), minute.belowLimitAt(limits.perMinute, now));
    return {
      allowed,
      limits,
      remainingMinute: Math.max(0, limits.perMinute - minute.count),
      remainingSecond: Math.max(0, limits.perSecond - second.count),
      minuteResetMs: minute.freesAt(now) - now,
      secondResetMs: second.freesAt(now) - now,
      retryAfterMs: retryAt - now,
    };
  }

  /** Drops buckets with nothing left in their minute window. */
  private sweep(now: number): void {
    for (const [bucket, state] of this.buckets) {
      state.minute.trim(now);
      if (state.minute.count === 0) this.buckets.delete(bucket);
    }
  }
}

const seconds = (ms: number) => Math.ceil(ms / 1000);

/** Writes X-RateLimit-*, RateLimit-Policy and RateLimit headers for a decision. */
export function rateLimitHeaders(d: RateDecision, nowMs: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limits.perMinute),
    'X-RateLimit-Remaining': String(d.remainingMinute),
    'X-RateLimit-Reset': String(seconds(nowMs + d.minuteResetMs)),
    'RateLimit-Policy': `"burst";q=${d.limits.perSecond};w=1, "minute";q=${d.limits.perMinute};w=60`,
    RateLimit: `"burst";r=${d.remainingSecond};t=${seconds(d.secondResetMs)}, "minute";r=${d.remainingMinute};t=${seconds(d.minuteResetMs)}`,
  };
}

/**
 * Middleware charging each request to its key (or, without a valid key, to its client address);
 * sets the headers on every response and answers 429 with Retry-After when over budget.
 */
export function rateLimit(limiter: RateLimiter, clock: Clock): RequestHandler {
  return function rateLimitMiddleware(req, res, next) {
    const key = req.principal?.key;
    const overrides: Partial<RateLimitSettings> = {};
    if (key?.rate_limit_per_second) overrides.perSecond = key.rate_limit_per_second;
    if (key?.rate_limit_per_minute) overrides.perMinute = key.rate_limit_per_minute;
    const decision = limiter.hit(key ? `key:${key.id}` : `ip:${req.ip}`, overrides);
    res.set(rateLimitHeaders(decision, clock.now()));
    if (decision.allowed) return next();
    const retryAfter = Math.max(1, seconds(decision.retryAfterMs));
    res.set('Retry-After', String(retryAfter));
    next(new AppError('rate_limited', `Rate limit exceeded; retry in ${retryAfter} s`));
  };
}
