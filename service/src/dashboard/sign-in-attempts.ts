import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';

/** Failed sign-ins allowed per client address and per account in one window, and the window. */
export interface SignInLimits {
  failures: number;
  windowMs: number;
}

/** Ten failures per address and per account in 15 minutes, then refusals until the oldest failure ages out. */
export const SIGN_IN_LIMITS: SignInLimits = { failures: 10, windowMs: 15 * 60_000 };

/** Counts failed sign-ins per subject (an address, an account) in a sliding window, in memory. */
export class SignInAttempts {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: SignInLimits = SIGN_IN_LIMITS,
  ) {}

  /** Throws rate_limited when any subject has used up its failures. */
  check(subjects: string[]): void {
    const now = this.clock.now();
    for (const subject of subjects) {
      if (this.recent(subject, now).length >= this.limits.failures) {
        throw new AppError('rate_limited', 'Too many failed sign-ins; wait a few minutes and try again');
      }
    }
  }

  /** Records one failure for each subject. */
  fail(subjects: string[]): void {
    const now = this.clock.now();
    for (const subject of subjects) this.failures.set(subject, [...this.recent(subject, now), now]);
    if (this.failures.size > 10_000) this.sweep(now);
  }

  private recent(subject: string, now: number): number[] {
    return (this.failures.get(subject) ?? []).filter((at) => at > now - this.limits.windowMs);
  }

  private sweep(now: number): void {
    for (const subject of [...this.failures.keys()]) {
      if (this.recent(subject, now).length === 0) this.failures.delete(subject);
    }
  }
}
