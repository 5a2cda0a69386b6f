import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  it('allows a burst, then refills at its rate', () => {
    const bucket = new TokenBucket(3, 2, 0);
    expect([1, 2, 3, 4].map(() => bucket.take(0))).toEqual([true, true, true, false]);
    expect(bucket.take(400)).toBe(false);
    expect(bucket.take(500)).toBe(true);
    expect(bucket.take(10_000)).toBe(true);
    expect([1, 2, 3].map(() => bucket.take(10_000))).toEqual([true, true, false]);
  });
});
