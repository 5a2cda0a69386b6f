import { frameDb, UtteranceCutter, type CutterOptions } from './utterance-cutter';

/** `ms` of a 440 Hz tone at about -12 dBFS (speech to the cutter). */
function tone(ms: number): Buffer {
  const samples = (16 * ms) | 0;
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(8_000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)), i * 2);
  return pcm;
}

/** `ms` of digital silence. */
function quiet(ms: number): Buffer {
  return Buffer.alloc(32 * ms);
}

/** A cutter fed `parts` in 20 ms chunks with `now` advancing by 20 ms each, and what it did. */
function run(parts: Buffer[], options: CutterOptions = {}) {
  const ends: number[] = [];
  let audioBytes = 0;
  const cutter = new UtteranceCutter({ audio: (pcm) => (audioBytes += pcm.length), end: (at) => ends.push(at) }, options);
  const all = Buffer.concat(parts);
  let now = 0;
  for (let offset = 0; offset < all.length; offset += 640) {
    now += 20;
    cutter.push(all.subarray(offset, offset + 640), now);
  }
  return { ends, audioBytes, total: all.length, cutter, now };
}

describe('UtteranceCutter', () => {
  it('passes every byte on and ends an utterance at a 240 ms pause, stamped with its last speech frame', () => {
    const { ends, audioBytes, total } = run([quiet(200), tone(600), quiet(300), tone(400), quiet(300)]);
    expect(audioBytes).toBe(total);
    expect(ends).toEqual([800, 1500]);
  });

  it('does not end a short utterance at a word gap, but ends a long one at its next gap', () => {
    const short = run([tone(500), quiet(80), tone(500), quiet(100)]);
    expect(short.ends).toEqual([]);
    const long = run([tone(1600), quiet(80), tone(300)]);
    expect(long.ends).toEqual([1600]);
  });

  it('cuts an utterance without any pause at the hard maximum', () => {
    const { ends } = run([tone(5_200)]);
    expect(ends).toEqual([5_000]);
  });

  it('ends the open utterance when audio stops arriving (a muted microphone), not before the stall time', () => {
    const { ends, cutter, now } = run([tone(400)]);
    expect(cutter.speaking).toBe(true);
    cutter.tick(now + 299);
    expect(ends).toEqual([]);
    cutter.tick(now + 300);
    expect(ends).toEqual([400]);
    cutter.tick(now + 1_000);
    expect(ends).toHaveLength(1);
  });

  it('never ends anything in silence or in noise below the speech level', () => {
    const noise = Buffer.alloc(32_000);
    for (let i = 0; i < noise.length / 2; i++) noise.writeInt16LE(((i * 7919) % 200) - 100, i * 2);
    expect(frameDb(noise)).toBeLessThan(-45);
    expect(run([quiet(1_000), noise, quiet(500)]).ends).toEqual([]);
  });

  it('measures loudness in dBFS', () => {
    expect(frameDb(quiet(20))).toBe(-120);
    expect(frameDb(tone(20))).toBeGreaterThan(-16);
    expect(frameDb(tone(20))).toBeLessThan(-8);
  });
});
