import { IdGenerator } from './ids';

describe('IdGenerator', () => {
  it('makes ids that sort in creation order, within a millisecond and across milliseconds', () => {
    let now = 1_790_000_000_000;
    const ids = new IdGenerator(() => now);
    const made: string[] = [];
    for (let ms = 0; ms < 1_000; ms++) {
      now += 1;
      for (let i = 0; i < 3; i++) made.push(ids.next('att'));
    }
    expect(made.every((id) => /^att_[0-9a-hjkmnp-tv-z]{26}$/.test(id))).toBe(true);
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it('starts every millisecond at fresh random bits, also after its pool of random bytes runs out', () => {
    let now = 1_790_000_000_000;
    const ids = new IdGenerator(() => now);
    const randomParts = new Set<string>();
    // More milliseconds than one pool of random bytes serves.
    for (let ms = 0; ms < 2_000; ms++) {
      now += 1;
      randomParts.add(ids.next('evt').slice(-16));
    }
    expect(randomParts.size).toBe(2_000);
  });

  it('keeps ids increasing when the clock goes back, and after observing a later id', () => {
    let now = 1_790_000_000_000;
    const ids = new IdGenerator(() => now);
    const first = ids.next('mtg');
    now -= 5_000;
    const second = ids.next('mtg');
    expect(second > first).toBe(true);
    const other = new IdGenerator(() => now + 60_000).next('mtg');
    ids.observe(other);
    expect(ids.next('mtg') > other).toBe(true);
  });
});
