import type { Room } from '../rooms/room';
import type { LiveTranscript, RoomCaptions } from '../rooms/room-captions.interface';
import type { AudioTapping, MicrophoneTap } from '../rooms/room-media.interface';
import type { Caption } from '../rooms/room.protocol';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { IdleClosingStream, type IdleOptions } from './idle-stream';
import { LiveTranscripts, type LiveTranscriptLimits } from './live-transcript';
import { PocketsphinxStreaming } from './pocketsphinx-stream';
import type { StreamingSpeechToText } from './speech-stream';
import { UtteranceCutter, type CutterOptions } from './utterance-cutter';

/** What LiveCaptions works with. */
export interface LiveCaptionsDeps {
  /** The streaming engine: one stream per speaking microphone. */
  engine: StreamingSpeechToText;
  clock: Clock;
  logger: Logger;
  /** Where utterances end (defaults suit pocketsphinx). */
  cutter?: CutterOptions;
  /** When a speaker's engine stops for lack of speech. */
  idle?: IdleOptions;
  transcripts?: LiveTranscriptLimits;
}

/** How often a stalled microphone is checked (its utterance ends after the cutter's stall time). */
const TICK_MS = 100;

/** One microphone being captioned. */
interface Recognizer {
  tap: MicrophoneTap;
  cutter: UtteranceCutter;
  speech: IdleClosingStream;
}

/** Captions of one room while they are on. */
interface CaptionedRoom {
  room: Room;
  tapping: AudioTapping;
  recognizers: Map<string, Recognizer>;
  ticker: NodeJS.Timeout;
}

/**
 * Live captions: while a host has them on in a room, every microphone there is decoded on the service
 * (RoomMedia.tapMicrophones) and recognized by the streaming engine, cut into utterances at pauses; each
 * result goes to everyone in the room as a `caption` notification, and finals into the meeting's live
 * transcript. No audio leaves the machine.
 */
export class LiveCaptions implements RoomCaptions {
  /** Final captions of recent meetings. */
  readonly transcripts: LiveTranscripts;
  private readonly rooms = new Map<string, CaptionedRoom>();

  constructor(private readonly deps: LiveCaptionsDeps) {
    this.transcripts = new LiveTranscripts(deps.transcripts);
  }

  set(room: Room, on: boolean): void {
    const meetingId = room.meeting.id;
    if (on === this.rooms.has(meetingId)) return;
    if (!on) {
      this.stop(meetingId);
      if (!room.closed) room.broadcast('captions', { active: false });
      return;
    }
    if (room.closed) throw AppError.conflict('The room has closed');
    const unavailable = this.deps.engine.unavailableReason();
    if (unavailable) throw AppError.conflict(unavailable);
    const recognizers = new Map<string, Recognizer>();
    let tapping: AudioTapping;
    try {
      tapping = room.media.tapMicrophones((tap) => recognizers.set(tap.producerId, this.recognize(room, tap)));
    } catch (error) {
      throw error instanceof AppError ? error : AppError.conflict(`Captions could not start: ${String(error)}`);
    }
    const ticker = setInterval(() => {
      const now = this.deps.clock.now();
      for (const { cutter, speech } of recognizers.values()) {
        cutter.tick(now);
        speech.tick(now, cutter.speaking);
      }
    }, TICK_MS);
    this.rooms.set(meetingId, { room, tapping, recognizers, ticker });
    // The room's media closed: the room closed, or its worker died and the room moved to new media (captions end; a host turns them on again).
    tapping.onClosed(() => {
      if (this.rooms.get(meetingId)?.tapping !== tapping) return;
      this.stop(meetingId);
      if (!room.closed) room.broadcast('captions', { active: false });
    });
    room.broadcast('captions', { active: true });
    this.deps.logger.info('live captions on', { meeting_id: meetingId, engine: this.deps.engine.name });
  }

  isOn(meetingId: string): boolean {
    return this.rooms.has(meetingId);
  }

  transcript(meetingId: string): LiveTranscript {
    return { captions_on: this.isOn(meetingId), lines: this.transcripts.lines(meetingId) };
  }

  /** Microphones being recognized in the meeting's room (0 when captions are off), for tests and benchmarks. */
  speakers(meetingId: string): number {
    return this.rooms.get(meetingId)?.recognizers.size ?? 0;
  }

  /** Of those, the ones whose engine runs now (the speaker spoke in the last `idleMs`). */
  runningEngines(meetingId: string): number {
    return [...(this.rooms.get(meetingId)?.recognizers.values() ?? [])].filter((r) => r.speech.open).length;
  }

  /** Stops captions everywhere (the service stops). */
  stopAll(): void {
    for (const meetingId of [...this.rooms.keys()]) this.stop(meetingId);
  }

  private stop(meetingId: string): void {
    const captioned = this.rooms.get(meetingId);
    if (!captioned) return;
    this.rooms.delete(meetingId);
    clearInterval(captioned.ticker);
    captioned.tapping.stop();
    for (const recognizer of captioned.recognizers.values()) recognizer.speech.close();
    this.deps.logger.info('live captions off', { meeting_id: meetingId });
  }

  private recognize(room: Room, tap: MicrophoneTap): Recognizer {
    const stream = new IdleClosingStream(this.deps.engine, this.deps.idle);
    const cutter: UtteranceCutter = new UtteranceCutter(
      { audio: (pcm) => stream.write(pcm, cutter.speaking, this.deps.clock.now()), end: () => stream.endUtterance() },
      this.deps.cutter,
    );
    tap.onPcm((pcm) => cutter.push(pcm, this.deps.clock.now()));
    stream.onText(({ text, final }) => {
      const caption: Caption = {
        participant_id: tap.owner?.participant_id ?? null,
        speaker: tap.owner?.name ?? null,
        text,
        final,
        at: isoAt(this.deps.clock.now()),
      };
      if (final) this.transcripts.add(room.meeting.id, caption);
      if (!room.closed) room.broadcast('caption', caption);
    });
    stream.onFailure((error) =>
      this.deps.logger.warn('live captions stopped for a microphone', { meeting_id: room.meeting.id, error: error.message }),
    );
    const recognizer: Recognizer = { tap, cutter, speech: stream };
    tap.onEnd(() => {
      stream.close();
      const captioned = this.rooms.get(room.meeting.id);
      if (captioned?.recognizers.get(tap.producerId) === recognizer) captioned.recognizers.delete(tap.producerId);
    });
    return recognizer;
  }
}

/** Live captions with Debian's pocketsphinx (the model in `modelDir`), fully offline. */
export function pocketsphinxCaptions(modelDir: string, clock: Clock, logger: Logger): LiveCaptions {
  return new LiveCaptions({ engine: new PocketsphinxStreaming(modelDir), clock, logger });
}
