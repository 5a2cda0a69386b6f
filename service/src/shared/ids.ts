import { randomBytes, randomInt } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
/** Random bytes are drawn from the OS this many at a time (a busy worker makes thousands of ids a second). */
const RANDOM_POOL_BYTES = 4096;
const RANDOM_BYTES_PER_ID = 10;

/** Prefixes of the opaque identifiers the API hands out. */
export type IdPrefix =
  | 'mtg'
  | 'rec'
  | 'evt'
  | 'reg'
  | 'key'
  | 'whk'
  | 'dlv'
  | 'org'
  | 'usr'
  | 'prt'
  | 'att'
  | 'int'
  | 'job'
  | 'msg'
  | 'peer'
  | 'ses'
  | 'inv'
  | 'pol'
  | 'opt'
  | 'brk';

/**
 * Creates prefixed identifiers whose text sorts in creation order (48-bit millisecond time, then
 * 80 bits that are random at the start of each millisecond and incremented within it), so ids
 * double as pagination and feed cursors.
 */
export class IdGenerator {
  private lastMs = -1;
  private lastRandom = 0n;
  private pool = Buffer.alloc(0);
  private poolOffset = 0;

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
      this.lastRandom = this.random80() >> 1n;
    }
    return `${prefix}_${encode(BigInt(ms), 10)}${encode(this.lastRandom, 16)}`;
  }

  private random80(): bigint {
    if (this.poolOffset + RANDOM_BYTES_PER_ID > this.pool.length) {
      this.pool = randomBytes(RANDOM_POOL_BYTES);
      this.poolOffset = 0;
    }
    const hex = this.pool.toString('hex', this.poolOffset, this.poolOffset + RANDOM_BYTES_PER_ID);
    this.poolOffset += RANDOM_BYTES_PER_ID;
    return BigInt('0x' + hex);
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
