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
 * The recordings of live rooms: at most one per room (keyed by meeting id, or by breakout room id), started and
 * stopped by hosts (or automatically), finished when the room closes or the service stops. While a meeting's main
 * room is recorded, each of its open breakout rooms is recorded on its own (its recordings name the breakout room);
 * stopping the main room's recording stops theirs. Starting creates the recording row (processing)
 * and tells everyone in the room; finishing measures the per-track file and marks it ready (its composite is then
 * rendered by the render_composite job, which emits recording.ready) or failed with the reason in the log.
 */
export class RoomRecordings {
  private readonly active = new Map<string, ActiveRecording>();
  private readonly finishing = new Set<Promise<unknown>>();
  private breakoutRoomsOf: (meetingId: string) => Room[] = () => [];

  constructor(
    private readonly recordings: RecordingsService,
    private readonly logger: Logger,
  ) {}

  /** Tells the recordings where a meeting's live breakout rooms are (RoomBreakouts does, once). */
  followBreakouts(roomsOf: (meetingId: string) => Room[]): void {
    this.breakoutRoomsOf = roomsOf;
  }

  /** True while the room (main or breakout) is being recorded. */
  recording(room: Room): boolean {
    return this.active.has(recordingKeyOf(room));
  }

  /** Starts recording a room; conflict when it already is, or when recording is unavailable (the recording is then marked failed). */
  start(room: Room): { recordingId: string } {
    const key = recordingKeyOf(room);
    if (this.active.has(key)) throw AppError.conflict('This meeting is already being recorded');
    if (room.closed) throw AppError.conflict('The room has closed');
    const row = this.recordings.start(room.meeting.id, 'tracks', null, room.breakout?.id ?? null);
    let media: MediaRecording;
    try {
      media = room.media.record(this.recordings.pathFor(row.id, 'mkv'));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.recordings.markFailed(row.id, reason);
      throw error instanceof AppError ? error : new AppError('conflict', `Recording could not start: ${reason}`);
    }
    const active: ActiveRecording = { recordingId: row.id, media, room };
    this.active.set(key, active);
    media.onFailure((error) => {
      if (this.active.get(key) !== active) return;
      this.active.delete(key);
      this.recordings.markFailed(row.id, error.message);
      if (!room.closed) room.setRecording(false);
    });
    room.setRecording(true);
    this.logger.info('recording started', { meeting_id: room.meeting.id, breakout_room_id: room.breakout?.id, recording_id: row.id });
    if (!room.breakout) for (const breakout of this.breakoutRoomsOf(room.meeting.id)) this.breakoutOpened(breakout);
    return { recordingId: row.id };
  }

  /** A breakout room opened (or its meeting's recording started): it is recorded on its own while its main room is. */
  breakoutOpened(room: Room): void {
    if (!room.breakout || !this.active.has(room.meeting.id) || this.recording(room)) return;
    try {
      this.start(room);
    } catch (error) {
      this.logger.warn('breakout room recording could not start', { breakout_room_id: room.breakout.id, error: String(error) });
    }
  }

  /**
   * Stops the room's recording and finishes its per-track file: the tracks recording is ready and its composite is
   * queued for rendering (recording.ready fires once the composite is verified), or failed, whose reason is the error.
   * `key` is the meeting id (the main room, whose breakout rooms' recordings stop too) or a breakout room's id.
   */
  stop(key: string): Promise<Recording> {
    const active = this.active.get(key);
    if (!active) return Promise.reject(AppError.conflict('This meeting is not being recorded'));
    this.active.delete(key);
    const meetingId = active.room.meeting.id;
    if (!active.room.breakout) {
      for (const [other, { room }] of this.active) if (room.breakout && room.meeting.id === meetingId) this.finish(other);
    }
    if (!active.room.closed) active.room.setRecording(false);
    const finished = active.media.stop().then(
      (file) => {
        const { tracks, composite } = this.recordings.finishTracks(active.recordingId, { ...file, fileName: `${active.recordingId}.mkv` });
        const measured = { size_bytes: file.sizeBytes, duration_seconds: file.durationSeconds, tracks: file.tracks.length };
        this.logger.info('recording ready', {
          meeting_id: meetingId,
          breakout_room_id: active.room.breakout?.id,
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

  /** Stops the recording of the room with this key (meeting or breakout room id), if any, without waiting; failures are logged. */
  finish(key: string): void {
    if (!this.active.has(key)) return;
    this.stop(key).catch((error: unknown) =>
      this.logger.warn('recording failed at the end of the meeting', { room: key, error: String(error) }),
    );
  }

  /** Stops every recording and waits until every file is finished (graceful stop). */
  async stopAll(): Promise<void> {
    for (const key of [...this.active.keys()]) this.finish(key);
    await Promise.allSettled([...this.finishing]);
  }

  private track(promise: Promise<unknown>): void {
    const settled = promise.catch(() => undefined);
    this.finishing.add(settled);
    void settled.finally(() => this.finishing.delete(settled));
  }
}

/** The key of a room's recording: its breakout room's id, or the meeting id for the main room. */
export function recordingKeyOf(room: Room): string {
  return room.breakout?.id ?? room.meeting.id;
}
