import { randomBytes, randomInt } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** Prefixes of the opaque identifiers the API hands out. */
export type IdPrefix =
  'mtg' | 'rec' | 'evt' | 'reg' | 'key' | 'whk' | 'dlv' | 'org' | 'usr' | 'prt' | 'att' | 'int' | 'job' | 'msg' | 'peer' | 'ses';

/**
 * Creates prefixed identifiers whose text sorts in creation order (48-bit millisecond time, then
 * 80 bits that are random at the start of each millisecond and incremented within it), so ids
 * double as pagination and feed cursors.
 */
export class IdGenerator {
  private lastMs = -1;
  private lastRandom = 0n;

  constructor(private readonly now: () => number = Date.now) {}

  /** Makes every later id sort after `id` (one this or another process made earlier), even if the clock went back. */
  observe(id: string): void {
    const body = id.slice(id.indexOf('_') + 1);
    const ms = Number(decode(body.slice(0, 10)));
    const random = decode(body.slice(10));
    if (ms > this.lastMs || (ms === this.lastMs && random > this.lastRandom)) {
      this.lastMs = ms;
      this.lastRandom = random;
    }
  }

  next(prefix: IdPrefix): string {
    let ms = this.now();
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.lastRandom += 1n;
    } else {
      this.lastMs = ms;
      this.lastRandom = BigInt('0x' + randomBytes(10).toString('hex')) >> 1n;
    }
    return `${prefix}_${encode(BigInt(ms), 10)}${encode(this.lastRandom, 16)}`;
  }
}

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

function decode(text: string): bigint {
  let value = 0n;
  for (const ch of text) value = (value << 5n) | BigInt(CROCKFORD.indexOf(ch));
  return value;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** A random meeting join code of three lowercase groups, 3-4-3 letters: `abc-defg-hij`. */
export function newMeetingCode(): string {
  const group = (n: number) => Array.from({ length: n }, () => LETTERS[randomInt(26)]).join('');
  return `${group(3)}-${group(4)}-${group(3)}`;
}
