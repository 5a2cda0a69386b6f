import path from 'node:path';
import type { EventsService } from '../events/events.service';
import type { Principal } from '../identity/identity.service';
import { toPage, type Page, type PageRequest } from '../shared/paging';
import { AppError } from '../shared/errors';
import { meetingRef, type MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { SignedTokens } from '../shared/signed-tokens';
import type { Logger } from '../shared/logger';
import type { JobQueue } from '../jobs/job.worker';
import type { Transaction } from '../shared/transaction';
import type { RecordingRow, RecordingsRepo } from './recordings.repo';

/** The recording resource of the API. */
export interface Recording {
  id: string;
  meeting_id: string;
  kind: RecordingRow['kind'];
  status: RecordingRow['status'];
  duration_seconds: number | null;
  size_bytes: number | null;
  content_type: string | null;
  download_url: string | null;
  created_at: string;
  ready_at: string | null;
  /** Why a failed recording failed (null unless `status` is failed). */
  failure_reason: string | null;
  /** A composite's tracks recording (the per-track file it was rendered from); null for other kinds. */
  source_recording_id: string | null;
  /** A tracks recording's tracks, in the file's order: whose, which source, when each starts and ends; null otherwise. */
  tracks: RecordingTrack[] | null;
  /** The breakout room it was recorded in (both its tracks and its composite); null for the main room's. */
  breakout_room_id: string | null;
}

/** One track of a tracks recording, as the API shows it. */
export interface RecordingTrack {
  kind: 'audio' | 'video';
  source: string;
  participant_id: string | null;
  name: string | null;
  offset_seconds: number;
  end_seconds: number;
}

/** The payload of a render_composite job. */
export interface RenderCompositeJobPayload {
  recording_id: string;
  layout: string;
}

/** Longest failure reason kept: a program's error output can be long. */
const MAX_FAILURE_REASON = 500;

/** Where a recording's file is and how to serve it. */
export interface RecordingFile {
  path: string;
  fileName: string;
  contentType: string;
}

/** The participant whose microphone (or camera) a recorded track carries, with their display name when it started. */
export interface TrackOwner {
  participant_id: string | null;
  name: string;
}

/** One track of a recording's per-track file. */
export interface RecordedTrack {
  kind: 'audio' | 'video';
  /** microphone, camera, screen (or screen audio), as the room named the producer. */
  source: string;
  owner: TrackOwner | null;
  /** Seconds from the file's start to the track's first packet. */
  offset_seconds: number;
  /** Seconds from the file's start to when the track ended (its producer closed, or the recording stopped). */
  end_seconds: number;
  /** Its index among the file's streams of its kind (ffmpeg's `0:a:N` / `0:v:N`). */
  stream: number;
}

/** What the media pipeline knows once a recording's file is complete. */
export interface FinishedFile {
  fileName: string;
  contentType: string;
  sizeBytes: number;
  durationSeconds: number;
  /** Whose microphone each audio track carries, in the file's audio track order (null: nobody's); absent when unknown. */
  audioTrackOwners?: (TrackOwner | null)[];
  /** Every track of a per-track file (audio first), with owner, source and start; absent for other files. */
  tracks?: RecordedTrack[];
}

/** What RecordingsService works with. */
export interface RecordingsServiceDeps {
  repo: RecordingsRepo;
  meetings: MeetingsService;
  events: EventsService;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  baseUrl: string;
  recordingsDir: string;
  tokens: SignedTokens;
  downloadUrlTtlMs: number;
  /** Queues the composite's render when a tracks recording is finished. */
  jobs?: JobQueue;
  logger?: Logger;
  /** Called in finishTracks' transaction once a room's tracks recording is ready (queues automatic transcription). */
  onTracksReady?: (tracks: Recording) => void;
}

/** Recordings of meetings; the media pipeline calls `start` and `markReady`, which emits recording.ready. */
export class RecordingsService {
  private readonly repo: RecordingsRepo;
  private readonly meetings: MeetingsService;
  private readonly events: EventsService;
  private readonly transaction: Transaction;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;
  private readonly baseUrl: string;
  private readonly recordingsDir: string;
  private readonly tokens: SignedTokens;
  private readonly downloadUrlTtlMs: number;
  private readonly logger?: Logger;
  private readonly jobs?: JobQueue;
  private readonly onTracksReady?: (tracks: Recording) => void;

  constructor(deps: RecordingsServiceDeps) {
    this.repo = deps.repo;
    this.meetings = deps.meetings;
    this.events = deps.events;
    this.transaction = deps.transaction;
    this.ids = deps.ids;
    this.clock = deps.clock;
    this.baseUrl = deps.baseUrl;
    this.recordingsDir = deps.recordingsDir;
    this.tokens = deps.tokens;
    this.downloadUrlTtlMs = deps.downloadUrlTtlMs;
    this.logger = deps.logger;
    this.jobs = deps.jobs;
    this.onTracksReady = deps.onTracksReady;
  }

  /** One page of the recordings of a meeting the principal can read, newest first. */
  list(principal: Principal, meetingIdOrCode: string, page: PageRequest): Page<Recording> {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    return toPage(this.repo.list(meeting.id, page.after, page.limit + 1), page.limit, (row) => this.view(row));
  }

  /** The file of a ready recording the principal can read; a recording it cannot reach is reported exactly like a missing one. */
  file(principal: Principal, recordingId: string): RecordingFile {
    const row = this.repo.findById(recordingId);
    if (row) this.meetings.find(principal, row.meeting_id);
    if (!row || row.status !== 'ready' || !row.file_name) throw AppError.notFound(`Recording ${recordingId}`);
    return this.fileOf(row);
  }

  private fileOf(row: RecordingRow): RecordingFile {
    const fileName = path.basename(row.file_name!);
    return { path: path.join(this.recordingsDir, fileName), fileName, contentType: row.content_type ?? 'application/octet-stream' };
  }

  /** The file of a ready recording, for whoever holds a download token of it that has not expired; unauthorized otherwise. */
  fileByToken(recordingId: string, token: string): RecordingFile {
    const claims = this.tokens.verify<{ r: string }>('recording-download', token, this.clock.now());
    if (claims.r !== recordingId) throw new AppError('unauthorized', 'The link or token is invalid or has expired');
    const row = this.repo.findById(recordingId);
    if (!row || row.status !== 'ready' || !row.file_name) throw AppError.notFound(`Recording ${recordingId}`);
    return this.fileOf(row);
  }

  /** Records that a recording of `meetingId` (of one of its breakout rooms with `breakoutRoomId`) began (status processing). */
  start(
    meetingId: string,
    kind: RecordingRow['kind'],
    sourceRecordingId: string | null = null,
    breakoutRoomId: string | null = null,
  ): RecordingRow {
    const row: RecordingRow = {
      id: this.ids.next('rec'),
      meeting_id: this.meetings.findAnywhere(meetingId).id,
      kind,
      status: 'processing',
      duration_seconds: null,
      file_name: null,
      content_type: null,
      size_bytes: null,
      created_at: isoAt(this.clock.now()),
      ready_at: null,
      failure_reason: null,
      audio_track_owners: null,
      source_recording_id: sourceRecordingId,
      tracks: null,
      breakout_room_id: breakoutRoomId,
    };
    this.repo.insert(row);
    return row;
  }

  /** Marks a processing recording ready with its file, and emits recording.ready in the same transaction. */
  markReady(recordingId: string, file: FinishedFile, opts: { emit?: boolean } = {}): Recording {
    return this.transaction(() => {
      const row = this.repo.findById(recordingId);
      if (!row) throw AppError.notFound(`Recording ${recordingId}`);
      if (row.status !== 'processing') throw AppError.conflict(`Recording ${recordingId} is already ${row.status}`);
      const ready: RecordingRow = {
        ...row,
        status: 'ready',
        file_name: file.fileName,
        content_type: file.contentType,
        size_bytes: file.sizeBytes,
        duration_seconds: file.durationSeconds,
        ready_at: isoAt(this.clock.now()),
        audio_track_owners: file.audioTrackOwners ? JSON.stringify(file.audioTrackOwners) : null,
        tracks: file.tracks ? JSON.stringify(file.tracks) : null,
      };
      this.repo.update(ready);
      const meeting = this.meetings.findAnywhere(row.meeting_id);
      const recording = this.view(ready);
      if (opts.emit === false) return recording;
      this.events.emit(meeting.organization_id, 'recording.ready', {
        meeting: meetingRef(this.meetings.view(meeting)),
        recording,
      });
      return recording;
    });
  }

  /** Marks a processing recording failed (its file could not be made), keeping `reason`. Returns false if it was no longer processing. */
  markFailed(recordingId: string, reason: string): boolean {
    const row = this.repo.findById(recordingId);
    if (!row || row.status !== 'processing') return false;
    this.repo.update({ ...row, status: 'failed', failure_reason: reason.slice(0, MAX_FAILURE_REASON) });
    this.logger?.warn('recording failed', { recording_id: recordingId, meeting_id: row.meeting_id, reason });
    return true;
  }

  /**
   * At start-up no recorder runs yet, so a recording still processing was cut off by a crash or a kill:
   * it is marked failed (its partial file, if any, stays in the recordings directory). Returns their ids.
   */
  failLeftovers(): string[] {
    // A composite still processing is its render job's: the job runs again after a restart.
    const leftovers = this.repo.processing().filter((row) => !row.source_recording_id);
    for (const row of leftovers) this.markFailed(row.id, 'the service stopped while it was recording');
    return leftovers.map((row) => row.id);
  }

  /** Where the file of a new recording goes. */
  pathFor(recordingId: string, extension: string): string {
    return path.join(this.recordingsDir, `${recordingId}.${extension}`);
  }

  /** The id of a meeting's newest ready recording of its main room, or undefined when none is ready. */
  latestReadyId(meetingId: string): string | undefined {
    return this.repo.list(meetingId, null, 1_000).find((row) => row.status === 'ready' && !row.breakout_room_id)?.id;
  }

  /**
   * The file and meeting of a ready recording, for background work (no principal), with whose microphone each audio
   * track carries (null when the recording does not say) and the breakout room it was made in (null for the main
   * room's); not_found otherwise.
   */
  readyFile(
    recordingId: string,
  ): RecordingFile & { meetingId: string; breakoutRoomId: string | null; audioTrackOwners: (TrackOwner | null)[] | null } {
    const asked = this.repo.findById(recordingId);
    // A composite mixes every voice into one track: its transcript is made from its tracks recording, one speaker per track.
    const row = asked?.source_recording_id ? this.repo.findById(asked.source_recording_id) : asked;
    if (!row || row.status !== 'ready' || !row.file_name) throw AppError.notFound(`Recording ${recordingId}`);
    const audioTrackOwners = row.audio_track_owners === null ? null : (JSON.parse(row.audio_track_owners) as (TrackOwner | null)[]);
    return { ...this.fileOf(row), meetingId: row.meeting_id, breakoutRoomId: row.breakout_room_id, audioTrackOwners };
  }

  /** A link that downloads a recording without an API key until it expires (each read of the recording mints a fresh one). */
  downloadUrl(recordingId: string): string {
    const token = this.tokens.sign('recording-download', { r: recordingId }, this.clock.now() + this.downloadUrlTtlMs);
    return `${this.baseUrl}/api/v1/public/recordings/${recordingId}/download?token=${token}`;
  }

  /** The API form of a stored recording. */
  view(row: RecordingRow): Recording {
    return {
      id: row.id,
      meeting_id: row.meeting_id,
      kind: row.kind,
      status: row.status,
      duration_seconds: row.duration_seconds,
      size_bytes: row.size_bytes,
      content_type: row.content_type,
      download_url: row.status === 'ready' ? this.downloadUrl(row.id) : null,
      created_at: row.created_at,
      ready_at: row.ready_at,
      failure_reason: row.failure_reason,
      source_recording_id: row.source_recording_id,
      breakout_room_id: row.breakout_room_id,
      tracks:
        row.tracks === null
          ? null
          : (JSON.parse(row.tracks) as RecordedTrack[]).map((t) => ({
              kind: t.kind,
              source: t.source,
              participant_id: t.owner?.participant_id ?? null,
              name: t.owner?.name ?? null,
              offset_seconds: t.offset_seconds,
              end_seconds: t.end_seconds,
            })),
    };
  }

  /**
   * Marks a room's per-track file ready (no event: recording.ready is the composite's) and, in the same transaction,
   * starts its composite (processing), queues the render_composite job in the meeting's layout and tells
   * `onTracksReady` (automatic transcription starts from the tracks, whatever becomes of the composite). Returns both.
   */
  finishTracks(tracksRecordingId: string, file: FinishedFile): { tracks: Recording; composite: Recording } {
    return this.transaction(() => {
      const tracks = this.markReady(tracksRecordingId, file, { emit: false });
      if (!this.jobs) throw new AppError('internal_error', 'No job queue to render the composite');
      const composite = this.start(tracks.meeting_id, 'video', tracksRecordingId, tracks.breakout_room_id);
      const layout = this.meetings.findAnywhere(tracks.meeting_id).recording_layout;
      this.jobs.enqueue('render_composite', { recording_id: composite.id, layout } satisfies RenderCompositeJobPayload);
      this.onTracksReady?.(tracks);
      return { tracks, composite: this.view(composite) };
    });
  }

  /** What a composite's render needs: its tracks recording's file and tracks, and where the MP4 goes; not_found otherwise. */
  compositeSource(compositeId: string): {
    meetingId: string;
    status: RecordingRow['status'];
    tracksFile: string;
    tracks: RecordedTrack[];
    outFile: string;
  } {
    const row = this.repo.findById(compositeId);
    const source = row?.source_recording_id ? this.repo.findById(row.source_recording_id) : undefined;
    if (!row || !source?.file_name || source.status !== 'ready') throw AppError.notFound(`Recording ${compositeId}`);
    return {
      meetingId: row.meeting_id,
      status: row.status,
      tracksFile: this.fileOf(source).path,
      tracks: JSON.parse(source.tracks ?? '[]') as RecordedTrack[],
      outFile: this.pathFor(compositeId, 'mp4'),
    };
  }
}
