import type { Recording, RecordingsService } from '../recordings/recordings.service';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import type { Room } from './room';
import type { MediaRecording } from './room-media.interface';

interface ActiveRecording {
  recordingId: string;
  media: MediaRecording;
  room: Room;
}

/**
 * The recordings of live rooms: at most one per room, started and stopped by hosts (or automatically),
 * finished when the room closes or the service stops. Starting creates the recording row (processing)
 * and tells everyone in the room; finishing measures the per-track file and marks it ready (its composite is then
 * rendered by the render_composite job, which emits recording.ready) or failed with the reason in the log.
 */
export class RoomRecordings {
  private readonly active = new Map<string, ActiveRecording>();
  private readonly finishing = new Set<Promise<unknown>>();

  constructor(
    private readonly recordings: RecordingsService,
    private readonly logger: Logger,
  ) {}

  /** Starts recording a room; conflict when it already is, or when recording is unavailable (the recording is then marked failed). */
  start(room: Room): { recordingId: string } {
    if (this.active.has(room.meeting.id)) throw AppError.conflict('This meeting is already being recorded');
    if (room.closed) throw AppError.conflict('The room has closed');
    const row = this.recordings.start(room.meeting.id, 'tracks');
    let media: MediaRecording;
    try {
      media = room.media.record(this.recordings.pathFor(row.id, 'mkv'));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.recordings.markFailed(row.id, reason);
      throw error instanceof AppError ? error : new AppError('conflict', `Recording could not start: ${reason}`);
    }
    const active: ActiveRecording = { recordingId: row.id, media, room };
    this.active.set(room.meeting.id, active);
    media.onFailure((error) => {
      if (this.active.get(room.meeting.id) !== active) return;
      this.active.delete(room.meeting.id);
      this.recordings.markFailed(row.id, error.message);
      if (!room.closed) room.setRecording(false);
    });
    room.setRecording(true);
    this.logger.info('recording started', { meeting_id: room.meeting.id, recording_id: row.id });
    return { recordingId: row.id };
  }

  /**
   * Stops the room's recording and finishes its per-track file: the tracks recording is ready and its composite is
   * queued for rendering (recording.ready fires once the composite is verified), or failed, whose reason is the error.
   */
  stop(meetingId: string): Promise<Recording> {
    const active = this.active.get(meetingId);
    if (!active) return Promise.reject(AppError.conflict('This meeting is not being recorded'));
    this.active.delete(meetingId);
    if (!active.room.closed) active.room.setRecording(false);
    const finished = active.media.stop().then(
      (file) => {
        const { tracks, composite } = this.recordings.finishTracks(active.recordingId, { ...file, fileName: `${active.recordingId}.mkv` });
        const measured = { size_bytes: file.sizeBytes, duration_seconds: file.durationSeconds, tracks: file.tracks.length };
        this.logger.info('recording ready', {
          meeting_id: meetingId,
          recording_id: active.recordingId,
          composite_id: composite.id,
          ...measured,
        });
        return tracks;
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        this.recordings.markFailed(active.recordingId, reason);
        throw error instanceof AppError ? error : new AppError('internal_error', `The recording failed: ${reason}`);
      },
    );
    this.track(finished);
    return finished;
  }

  /** Stops the room's recording, if any, without waiting; failures are logged. */
  finish(meetingId: string): void {
    if (!this.active.has(meetingId)) return;
    this.stop(meetingId).catch((error: unknown) =>
      this.logger.warn('recording failed at the end of the meeting', { meeting_id: meetingId, error: String(error) }),
    );
  }

  /** Stops every recording and waits until every file is finished (graceful stop). */
  async stopAll(): Promise<void> {
    for (const meetingId of [...this.active.keys()]) this.finish(meetingId);
    await Promise.allSettled([...this.finishing]);
  }

  private track(promise: Promise<unknown>): void {
    const settled = promise.catch(() => undefined);
    this.finishing.add(settled);
    void settled.finally(() => this.finishing.delete(settled));
  }
}
