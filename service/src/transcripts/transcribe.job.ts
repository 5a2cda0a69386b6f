import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EventSubscriber } from '../events/events.service';
import type { EventRow } from '../events/events.repo';
import type { JobHandler, JobQueue } from '../jobs/job.worker';
import type { MeetingsService } from '../meetings/meetings.service';
import type { Recording, RecordingsService } from '../recordings/recordings.service';
import type { Logger } from '../shared/logger';
import type { Transaction } from '../shared/transaction';
import { prepareTracks } from './audio';
import { UnusableRecordingError, type SpeechToText } from './speech-to-text';
import type { TranscriptSegment } from './transcripts.repo';
import type { TranscriptsService } from './transcripts.service';

/** The payload of a transcribe job. */
export interface TranscribeJobPayload {
  recording_id: string;
}

/** The payload of a summarize job. */
export interface SummarizeJobPayload {
  meeting_id: string;
}

/** What the transcribe job needs. */
export interface TranscribeJobDeps {
  recordings: RecordingsService;
  transcripts: TranscriptsService;
  jobs: JobQueue;
  transaction: Transaction;
  engine: SpeechToText;
  logger: Logger;
}

/**
 * The `transcribe` job: converts a ready recording's audio tracks to 16 kHz mono wav, runs the speech-to-text
 * engine on each, names each segment's speaker after the track's owner (the recording's `audioTrackOwners`), stores
 * the merged segments as the transcript of the room the recording was made in (the meeting's main room, or its
 * breakout room; transcript.ready) and, for the main room, queues the meeting's `summarize` job in the same
 * transaction, so a crash anywhere before the commit leaves nothing behind and the retry does it all once.
 */
export class TranscribeJob implements JobHandler<TranscribeJobPayload> {
  readonly kind = 'transcribe';

  constructor(private readonly deps: TranscribeJobDeps) {}

  /** Transcribes the recording named in the payload. */
  async run(payload: TranscribeJobPayload, job: { id: string; signal: AbortSignal }): Promise<void> {
    const file = this.deps.recordings.readyFile(payload.recording_id);
    const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-transcribe-'));
    try {
      const started = Date.now();
      const tracks = await prepareTracks(file.path, workDir, job.signal, file.audioTrackOwners);
      const segments: TranscriptSegment[] = [];
      for (const track of tracks) {
        const heard = await this.deps.engine.transcribe(track, job.signal);
        // The track says who spoke, whatever a plugged-in engine put in its segments.
        segments.push(...heard.map((s) => ({ ...s, speaker: track.speaker, participant_id: track.participantId })));
      }
      if (segments.length === 0) throw new UnusableRecordingError('no speech was recognized in the recording');
      segments.sort((a, b) => a.start - b.start);
      this.deps.transaction(() => {
        this.deps.transcripts.complete(file.meetingId, { language: 'en', segments }, file.breakoutRoomId);
        // The meeting's summary is made from its main room's transcript.
        if (!file.breakoutRoomId) this.deps.jobs.enqueue('summarize', { meeting_id: file.meetingId } satisfies SummarizeJobPayload);
      });
      this.deps.logger.info('transcribed', {
        job_id: job.id,
        recording_id: payload.recording_id,
        breakout_room_id: file.breakoutRoomId ?? undefined,
        engine: this.deps.engine.name,
        segments: segments.length,
        took_ms: Date.now() - started,
      });
    } finally {
      await fs.rm(workDir, { recursive: true, force: true });
    }
  }
}

/**
 * Queues one `transcribe` job per recording of a meeting with `settings.transcription_auto`: for a room's tracks
 * recording as soon as it is ready (`tracksReady`, in its transaction), so a composite that fails to render still
 * gets its meeting a transcript; for any other recording on its recording.ready. The composite's recording.ready
 * queues nothing (its tracks recording already did), so a meeting is transcribed once.
 */
export class TranscriptionTrigger implements EventSubscriber {
  constructor(
    private readonly meetings: MeetingsService,
    private readonly jobs: JobQueue,
  ) {}

  /** Looks at one event as it is written. */
  enqueue(event: EventRow): void {
    if (event.type !== 'recording.ready') return;
    const { data } = JSON.parse(event.payload) as { data: { meeting: { id: string }; recording: Recording } };
    if (data.recording.source_recording_id) return;
    this.queue(data.meeting.id, data.recording.id);
  }

  /**
   * A room's tracks recording is ready: queues its transcription when the meeting asks for it. A breakout room's
   * recording is transcribed on its own, into that breakout room's transcript.
   */
  tracksReady(recording: Recording): void {
    this.queue(recording.meeting_id, recording.id);
  }

  private queue(meetingId: string, recordingId: string): void {
    if (this.meetings.findAnywhere(meetingId).transcription_auto !== 1) return;
    this.jobs.enqueue('transcribe', { recording_id: recordingId } satisfies TranscribeJobPayload);
  }
}
