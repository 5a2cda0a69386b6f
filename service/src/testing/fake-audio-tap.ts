import type { AudioTapping, MicrophoneTap, TrackOwner } from '../rooms/room-media.interface';

/** A microphone tap of the fake media: a test pushes the PCM a real tap would decode. */
export class FakeMicrophoneTap implements MicrophoneTap {
  private readonly pcmListeners: ((pcm: Buffer) => void)[] = [];
  private readonly endListeners: (() => void)[] = [];
  private ended = false;

  constructor(
    readonly producerId: string,
    readonly owner: TrackOwner | undefined,
  ) {}

  onPcm(listener: (pcm: Buffer) => void): void {
    this.pcmListeners.push(listener);
  }

  onEnd(listener: () => void): void {
    this.endListeners.push(listener);
  }

  /** Delivers decoded audio (16 kHz mono s16le) as if it arrived now. */
  push(pcm: Buffer): void {
    if (!this.ended) for (const listener of this.pcmListeners) listener(pcm);
  }

  /** The microphone went away. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const listener of this.endListeners.splice(0)) listener();
  }
}

/** The fake media's tapping of microphones: `taps` are those it started, in order. */
export class FakeTapping implements AudioTapping {
  readonly taps: FakeMicrophoneTap[] = [];
  stopped = false;
  private readonly closedListeners: (() => void)[] = [];

  constructor(private readonly listener: (tap: MicrophoneTap) => void) {}

  /** Taps a producer when it is a microphone. */
  add(producerId: string, producer: { source: string; owner?: TrackOwner }): void {
    if (this.stopped || producer.source !== 'microphone') return;
    const tap = new FakeMicrophoneTap(producerId, producer.owner);
    this.taps.push(tap);
    this.listener(tap);
  }

  /** Ends the tap of a producer that closed. */
  drop(producerId: string): void {
    for (const tap of this.taps) if (tap.producerId === producerId) tap.end();
  }

  stop(): void {
    this.stopped = true;
    for (const tap of this.taps) tap.end();
  }

  onClosed(listener: () => void): void {
    this.closedListeners.push(listener);
  }

  /** The media closed. */
  close(): void {
    this.stop();
    for (const listener of this.closedListeners.splice(0)) listener();
  }
}
