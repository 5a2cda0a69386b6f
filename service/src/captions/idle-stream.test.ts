import { IdleClosingStream } from './idle-stream';
import type { RecognizedText, SpeechStream, StreamingSpeechToText } from './speech-stream';

/** An engine that keeps what each of its streams was given, and lets a test answer or fail. */
class RecordingEngine implements StreamingSpeechToText {
  readonly name = 'recording';
  readonly streams: { written: Buffer[]; ends: number; closed: boolean; say(text: string): void; fail(): void }[] = [];

  unavailableReason(): string | null {
    return null;
  }

  open(): SpeechStream {
    const text: ((result: RecognizedText) => void)[] = [];
    const failure: ((error: Error) => void)[] = [];
    const record = {
      written: [] as Buffer[],
      ends: 0,
      closed: false,
      say: (words: string) => text.forEach((listener) => listener({ text: words, final: true })),
      fail: () => failure.forEach((listener) => listener(new Error('engine died'))),
    };
    this.streams.push(record);
    return {
      write: (pcm) => void record.written.push(pcm),
      endUtterance: () => void record.ends++,
      onText: (listener) => void text.push(listener),
      onFailure: (listener) => void failure.push(listener),
      close: () => void (record.closed = true),
    };
  }
}

const chunk = (byte: number) => Buffer.alloc(3_200, byte); // 100 ms

describe('IdleClosingStream', () => {
  it('opens the engine at the first speech with the half second before it, and keeps it while the speaker speaks', () => {
    const engine = new RecordingEngine();
    const speech = new IdleClosingStream(engine);
    for (let i = 1; i <= 8; i++) speech.write(chunk(i), false, i * 100);
    expect(engine.streams).toHaveLength(0);
    expect(speech.open).toBe(false);
    speech.write(chunk(9), true, 900);
    expect(engine.streams).toHaveLength(1);
    // 500 ms of pre-roll (chunks 4..8), then the speech.
    expect(engine.streams[0]!.written.map((b) => b[0])).toEqual([4, 5, 6, 7, 8, 9]);
    speech.write(chunk(10), false, 1_000);
    speech.endUtterance();
    expect(engine.streams[0]!.ends).toBe(1);
    expect(engine.streams[0]!.written.map((b) => b[0])).toEqual([4, 5, 6, 7, 8, 9, 10]);
  });

  it('passes results on from every engine it opens, and closes the engine after 30 s without speech, not while speaking', () => {
    const engine = new RecordingEngine();
    const speech = new IdleClosingStream(engine);
    const heard: string[] = [];
    speech.onText(({ text }) => heard.push(text));
    speech.write(chunk(1), true, 0);
    engine.streams[0]!.say('hello');
    speech.tick(29_999, false);
    expect(engine.streams[0]!.closed).toBe(false);
    speech.tick(40_000, true);
    expect(engine.streams[0]!.closed).toBe(false);
    speech.tick(30_000, false);
    expect(engine.streams[0]!.closed).toBe(true);
    expect(speech.open).toBe(false);
    speech.write(chunk(2), true, 31_000);
    expect(engine.streams).toHaveLength(2);
    engine.streams[1]!.say('again');
    expect(heard).toEqual(['hello', 'again']);
  });

  it('reports an engine that died and opens a new one at the next speech', () => {
    const engine = new RecordingEngine();
    const speech = new IdleClosingStream(engine);
    const failures: string[] = [];
    speech.onFailure((error) => failures.push(error.message));
    speech.write(chunk(1), true, 0);
    engine.streams[0]!.fail();
    expect(failures).toEqual(['engine died']);
    expect(speech.open).toBe(false);
    speech.write(chunk(2), true, 100);
    expect(engine.streams).toHaveLength(2);
  });
});
