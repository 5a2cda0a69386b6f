import { PCM_BYTES_PER_SECOND } from './speech-stream';

/** Where the cutter ends utterances; every field has a default (tuned on flite and pocketsphinx, see the README). */
export interface CutterOptions {
  /** A 20 ms frame louder than this (RMS, dBFS) is speech; default -45. */
  speechDb?: number;
  /** A pause this long ends an utterance; default 240 ms. */
  pauseMs?: number;
  /** Past this length an utterance ends at the next short pause (a word gap); default 1500 ms. */
  softMaxMs?: number;
  /** The short pause that ends a long utterance; default 60 ms. */
  shortPauseMs?: number;
  /** An utterance is cut at this length even without a pause; default 5000 ms. */
  hardMaxMs?: number;
  /** No audio for this long (a muted microphone, a sender in DTX) ends the utterance; default 300 ms. */
  stallMs?: number;
}

/** What the cutter tells its engine. */
export interface CutterSink {
  /** Audio to recognize, in order. */
  audio(pcm: Buffer): void;
  /** The utterance ended; `speechEndedAt` is when its last speech frame arrived (ms, the caller's clock). */
  end(speechEndedAt: number): void;
}

const FRAME_MS = 20;
const FRAME_BYTES = (PCM_BYTES_PER_SECOND * FRAME_MS) / 1000;

/**
 * Cuts one speaker's PCM stream into utterances at pauses, so each becomes a caption within a fraction of a
 * second of its last word instead of at the end of a long run-on: pauses are measured on 20 ms frames by
 * their loudness; a long utterance ends at its next word gap, a very long one anyway; a stalled stream ends
 * the utterance it was in (`tick`).
 */
export class UtteranceCutter {
  private readonly opts: Required<CutterOptions>;
  private rest = Buffer.alloc(0);
  private speechMs = 0;
  private pauseMs = 0;
  private inUtterance = false;
  private lastSpeechAt = 0;
  private lastAudioAt = 0;

  constructor(
    private readonly sink: CutterSink,
    options: CutterOptions = {},
  ) {
    this.opts = {
      speechDb: options.speechDb ?? -45,
      pauseMs: options.pauseMs ?? 240,
      softMaxMs: options.softMaxMs ?? 1_500,
      shortPauseMs: options.shortPauseMs ?? 60,
      hardMaxMs: options.hardMaxMs ?? 5_000,
      stallMs: options.stallMs ?? 300,
    };
  }

  /** Feeds PCM that arrived at `now` (ms); passes it on and ends utterances at pauses. */
  push(pcm: Buffer, now: number): void {
    this.lastAudioAt = now;
    this.sink.audio(pcm);
    let data = this.rest.length > 0 ? Buffer.concat([this.rest, pcm]) : pcm;
    while (data.length >= FRAME_BYTES) {
      this.frame(data.subarray(0, FRAME_BYTES), now);
      data = data.subarray(FRAME_BYTES);
    }
    this.rest = Buffer.from(data);
  }

  /** Ends the current utterance when no audio came for `stallMs`; call it every ~100 ms. */
  tick(now: number): void {
    if (this.inUtterance && now - this.lastAudioAt >= this.opts.stallMs) this.cut();
  }

  /** True while an utterance is open. */
  get speaking(): boolean {
    return this.inUtterance;
  }

  private frame(frame: Buffer, now: number): void {
    if (frameDb(frame) > this.opts.speechDb) {
      this.inUtterance = true;
      this.speechMs += FRAME_MS + this.pauseMs;
      this.pauseMs = 0;
      this.lastSpeechAt = now;
      if (this.speechMs >= this.opts.hardMaxMs) this.cut();
      return;
    }
    if (!this.inUtterance) return;
    this.pauseMs += FRAME_MS;
    const long = this.speechMs >= this.opts.softMaxMs;
    if (this.pauseMs >= this.opts.pauseMs || (long && this.pauseMs >= this.opts.shortPauseMs)) this.cut();
  }

  private cut(): void {
    this.inUtterance = false;
    this.speechMs = 0;
    this.pauseMs = 0;
    this.sink.end(this.lastSpeechAt);
  }
}

/** The RMS loudness of a frame of s16le samples in dBFS (-120 for digital silence). */
export function frameDb(frame: Buffer): number {
  let sum = 0;
  const samples = Math.floor(frame.length / 2);
  for (let i = 0; i < samples; i++) {
    const v = frame.readInt16LE(i * 2);
    sum += v * v;
  }
  if (samples === 0 || sum === 0) return -120;
  return 10 * Math.log10(sum / samples / (32_768 * 32_768));
}
