import { PermanentJobError } from '../jobs/job.worker';
import type { TranscriptSegment } from './transcripts.repo';

/** One audio track ready for recognition: 16 kHz mono 16-bit PCM wav on disk, and whose voice it carries when known. */
export interface SpeechTrack {
  wavPath: string;
  /** The speaker's name, null when unknown. */
  speaker: string | null;
  /** The speaker's participant, null when unknown. */
  participantId: string | null;
}

/** A speech-to-text engine: turns a prepared track into timed segments (seconds from the track's start). */
export interface SpeechToText {
  /** A short name for logs and the README ("pocketsphinx", "openai"). */
  readonly name: string;
  /** The segments heard in the track, in order; an empty list when nothing was recognized. `signal` abandons the work. */
  transcribe(track: SpeechTrack, signal?: AbortSignal): Promise<TranscriptSegment[]>;
}

/** A failure no retry can fix (a corrupt file, a recording without speech): the job fails at once with this reason. */
export class UnusableRecordingError extends PermanentJobError {}
