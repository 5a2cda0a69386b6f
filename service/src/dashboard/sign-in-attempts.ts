import { createHash } from 'node:crypto';
import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { SignInFailuresRepo } from './dashboard.repo';

/** Failed sign-ins allowed per client address and per account in one window, and the window. */
export interface SignInLimits {
  failures: number;
  windowMs: number;
}

/** Ten failures per address and per account in 15 minutes, then refusals until the oldest failure ages out. */
export const SIGN_IN_LIMITS: SignInLimits = { failures: 10, windowMs: 15 * 60_000 };

/** Counts failed sign-ins per subject (an address, an account) in a sliding window, in SQLite so a restart keeps them. */
export class SignInAttempts {
  constructor(
    private readonly repo: SignInFailuresRepo,
    private readonly clock: Clock,
    private readonly limits: SignInLimits = SIGN_IN_LIMITS,
  ) {}

  /** Throws rate_limited when any subject has used up its failures. */
  check(subjects: string[]): void {
    const since = this.clock.now() - this.limits.windowMs;
    for (const subject of subjects) {
      if (this.repo.count(hashOf(subject), since) >= this.limits.failures) {
        throw new AppError('rate_limited', 'Too many failed sign-ins; wait a few minutes and try again');
      }
    }
  }

  /** Records one failure for each subject. */
  fail(subjects: string[]): void {
    const now = this.clock.now();
    this.repo.record(subjects.map(hashOf), now, now - this.limits.windowMs);
  }
}

function hashOf(subject: string): Buffer {
  return createHash('sha256').update(subject).digest();
}
