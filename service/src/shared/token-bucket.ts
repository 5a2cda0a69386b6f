/** A token bucket: up to `burst` takes at once, refilled at `perSecond`; times are epoch ms from the caller's clock. */
export class TokenBucket {
  private tokens: number;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private checkedAt: number,
  ) {
    this.tokens = burst;
  }

  /** Takes one token; false when none is left. */
  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.checkedAt) / 1000) * this.perSecond);
    this.checkedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
