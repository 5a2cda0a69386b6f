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

/** What the media pipeline knows once a recording's file is complete. */
export interface FinishedFile {
  fileName: string;
  contentType: string;
  sizeBytes: number;
  durationSeconds: number;
  /** Whose microphone each audio track carries, in the file's audio track order (null: nobody's); absent when unknown. */
  audioTrackOwners?: (TrackOwner | null)[];
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
  logger?: Logger;
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

  /** Records that a recording of `meetingId` began (status processing). */
  start(meetingId: string, kind: RecordingRow['kind']): RecordingRow {
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
    };
    this.repo.insert(row);
    return row;
  }

  /** Marks a processing recording ready with its file, and emits recording.ready in the same transaction. */
  markReady(recordingId: string, file: FinishedFile): Recording {
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
      };
      this.repo.update(ready);
      const meeting = this.meetings.findAnywhere(row.meeting_id);
      const recording = this.view(ready);
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
    const leftovers = this.repo.processing();
    for (const row of leftovers) this.markFailed(row.id, 'the service stopped while it was recording');
    return leftovers.map((row) => row.id);
  }

  /** Where the file of a new recording goes. */
  pathFor(recordingId: string, extension: string): string {
    return path.join(this.recordingsDir, `${recordingId}.${extension}`);
  }

  /** The id of a meeting's newest ready recording, or undefined when none is ready. */
  latestReadyId(meetingId: string): string | undefined {
    return this.repo.list(meetingId, null, 1_000).find((row) => row.status === 'ready')?.id;
  }

  /**
   * The file and meeting of a ready recording, for background work (no principal), with whose microphone each audio
   * track carries (null when the recording does not say); not_found otherwise.
   */
  readyFile(recordingId: string): RecordingFile & { meetingId: string; audioTrackOwners: (TrackOwner | null)[] | null } {
    const row = this.repo.findById(recordingId);
    if (!row || row.status !== 'ready' || !row.file_name) throw AppError.notFound(`Recording ${recordingId}`);
    const audioTrackOwners = row.audio_track_owners === null ? null : (JSON.parse(row.audio_track_owners) as (TrackOwner | null)[]);
    return { ...this.fileOf(row), meetingId: row.meeting_id, audioTrackOwners };
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
    };
  }
}
