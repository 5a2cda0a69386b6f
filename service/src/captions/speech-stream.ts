/**
 * The model-agnostic streaming speech-to-text interface live captions use. An engine turns 16 kHz mono
 * s16le PCM into text as it arrives; the captions feature decides where utterances end (utterance-cutter.ts)
 * and tells the engine. Pocketsphinx is the default (pocketsphinx-stream.ts); another engine is one class
 * implementing `StreamingSpeechToText`, passed to `LiveCaptions` in services.ts.
 */

/** Text an engine recognized in the current utterance: `final` once the utterance ended, else a partial that a later result replaces. */
export interface RecognizedText {
  text: string;
  final: boolean;
}

/** One speaker's open recognition stream. */
export interface SpeechStream {
  /** Audio in: 16 kHz mono signed 16-bit little-endian PCM, any chunk size, in order. */
  write(pcm: Buffer): void;
  /** The current utterance ended (a pause, or the speaker went quiet): the engine finalizes what it heard. */
  endUtterance(): void;
  /** Results out, in order. */
  onText(listener: (result: RecognizedText) => void): void;
  /** Called once when the engine stopped on its own (it crashed or is missing). */
  onFailure(listener: (error: Error) => void): void;
  /** Ends the stream and frees the engine; idempotent. */
  close(): void;
}

/** A streaming speech-to-text engine: one stream per speaking microphone. */
export interface StreamingSpeechToText {
  /** A short name for logs and the README ("pocketsphinx"). */
  readonly name: string;
  /** Null when the engine can run here, else why not (a missing program or model). */
  unavailableReason(): string | null;
  open(): SpeechStream;
}

/** PCM format every engine receives. */
export const PCM_SAMPLE_RATE = 16_000;
/** Bytes per second of that PCM (16-bit mono). */
export const PCM_BYTES_PER_SECOND = PCM_SAMPLE_RATE * 2;
