import type { RecognizedText, SpeechStream, StreamingSpeechToText } from './speech-stream';
import { PCM_BYTES_PER_SECOND } from './speech-stream';

/** When a speaker's engine runs; both have defaults. */
export interface IdleOptions {
  /** The engine stops after this long without speech; default 30 s. */
  idleMs?: number;
  /** Audio kept from before speech starts, written when the engine opens; default 500 ms. */
  preRollMs?: number;
}

/**
 * One speaker's recognition, with the engine running only while they speak: it opens at the first speech (the
 * last half second before it is written first, so the first word is whole) and closes after 30 s without any.
 * A tapped microphone that stays quiet costs no engine (pocketsphinx is about 100 MB and 0.6 s of CPU to load).
 */
export class IdleClosingStream {
  private stream: SpeechStream | undefined;
  private preRoll: Buffer[] = [];
  private preRollBytes = 0;
  private lastSpeechAt = 0;
  private readonly textListeners: ((result: RecognizedText) => void)[] = [];
  private readonly failureListeners: ((error: Error) => void)[] = [];
  private readonly idleMs: number;
  private readonly preRollLimit: number;

  constructor(
    private readonly engine: StreamingSpeechToText,
    options: IdleOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 30_000;
    this.preRollLimit = Math.round(((options.preRollMs ?? 500) * PCM_BYTES_PER_SECOND) / 1000);
  }

  /** True while the engine runs. */
  get open(): boolean {
    return this.stream !== undefined;
  }

  /** Audio that arrived at `now`; `speaking` says whether the speaker is in an utterance. */
  write(pcm: Buffer, speaking: boolean, now: number): void {
    if (speaking) this.lastSpeechAt = now;
    if (!this.stream && !speaking) return this.keep(pcm);
    if (!this.stream) this.start();
    this.stream!.write(pcm);
  }

  endUtterance(): void {
    this.stream?.endUtterance();
  }

  /** Closes the engine after `idleMs` without speech (call it now and then; a final result has long arrived by then). */
  tick(now: number, speaking: boolean): void {
    if (this.stream && !speaking && now - this.lastSpeechAt >= this.idleMs) this.close();
  }

  onText(listener: (result: RecognizedText) => void): void {
    this.textListeners.push(listener);
  }

  onFailure(listener: (error: Error) => void): void {
    this.failureListeners.push(listener);
  }

  close(): void {
    this.stream?.close();
    this.stream = undefined;
  }

  private start(): void {
    const stream = this.engine.open();
    stream.onText((result) => this.textListeners.forEach((listener) => listener(result)));
    stream.onFailure((error) => {
      if (this.stream === stream) this.stream = undefined;
      this.failureListeners.forEach((listener) => listener(error));
    });
    this.stream = stream;
    for (const pcm of this.preRoll.splice(0)) stream.write(pcm);
    this.preRollBytes = 0;
  }

  private keep(pcm: Buffer): void {
    this.preRoll.push(pcm);
    this.preRollBytes += pcm.length;
    while (this.preRoll.length > 1 && this.preRollBytes - this.preRoll[0]!.length >= this.preRollLimit) {
      this.preRollBytes -= this.preRoll.shift()!.length;
    }
  }
}
