/**
 * Recording and live captions of a room whose shards are all on media nodes: both run ffmpeg beside a router, so
 * they need a router on this process's workers. The recording shard is one, opened for them on first use with
 * every producer of the room piped in (as a peer's shard gets them); it holds no peers, so it never takes
 * viewers from the nodes, and it closes when its last recording or tap stops, or with the room. When it is lost
 * (its worker died) its recordings fail (onFailure, as when a recorder's ffmpeg dies) and its taps end (onClosed).
 */
import fs from 'node:fs';
import type { AudioTapping, MediaRecording, MicrophoneTap, RecordedMedia } from '../rooms/room-media.interface';
import { AppError } from '../shared/errors';
import type { MediaShard } from './media-shard';
import { recordingUnavailableReason } from './recorder';

/** What the room does for its recording shard. */
export interface RecordingShardHost {
  /**
   * The shard to record on instead, if any: the room's first shard with peers on this process's workers, or its
   * home shard when the service has no workers (a shard on a node refuses, conflict).
   */
  direct(): MediaShard | undefined;
  /** Opens a shard on this process's workers with every producer of the room piped in. */
  open(): Promise<MediaShard>;
  /** Closes the shard and takes it out of the room (its last user stopped). */
  close(media: MediaShard): void;
}

/** A recording or tap on the shard, told when the shard is lost. */
interface User {
  lost(error: Error): void;
}

/** Why a recording on a lost recording shard failed. */
export const RECORDING_SHARD_LOST = 'The media worker that recorded this room stopped';

/** A room's recording shard: opened by its first user, closed after its last; see the file comment. */
export class RecordingShard {
  private opening: Promise<MediaShard> | undefined;
  /** The shard `opening` resolved to. */
  private current: MediaShard | undefined;
  private readonly users = new Set<User>();

  constructor(private readonly host: RecordingShardHost) {}

  /** Records the room (on the recording shard unless `direct` names one); a shard that cannot open fails the recording (onFailure). */
  record(filePath: string): MediaRecording {
    const direct = this.host.direct();
    if (direct) return direct.record(filePath);
    // Refused at once, as a shard's own recorder does, rather than failing once the shard is open.
    const unavailable = recordingUnavailableReason();
    if (unavailable) throw AppError.conflict(unavailable);
    let failure: Error | undefined;
    const failureListeners: ((error: Error) => void)[] = [];
    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      this.release(user);
      for (const listener of failureListeners) listener(error);
    };
    const user: User = {
      lost: (error) => {
        fail(error);
        // Its ffmpeg processes end; what they wrote is no recording.
        void started.then((recording) => recording.stop()).then(() => fs.promises.rm(filePath, { force: true }), noop);
      },
    };
    const started = this.use(user).then((media) => media.record(filePath));
    started.then((recording) => recording.onFailure(fail), fail);
    return {
      stop: async (): Promise<RecordedMedia> => {
        try {
          const recording = await started;
          if (failure) throw failure;
          return await recording.stop();
        } finally {
          this.release(user);
        }
      },
      onFailure: (listener) => {
        failureListeners.push(listener);
        if (failure) listener(failure);
      },
    };
  }

  /** Taps the room's microphones on the recording shard; a shard that cannot open, or is lost, ends the tapping (onClosed). */
  tapMicrophones(listener: (tap: MicrophoneTap) => void): AudioTapping {
    const direct = this.host.direct();
    if (direct) return direct.tapMicrophones(listener);
    let ended = false;
    const closedListeners: (() => void)[] = [];
    const end = () => {
      if (ended) return;
      ended = true;
      this.release(user);
      for (const closed of closedListeners) closed();
    };
    const user: User = { lost: end };
    const started = this.use(user).then((media) => {
      const tapping = media.tapMicrophones(listener);
      tapping.onClosed(end);
      if (ended) tapping.stop();
      return tapping;
    });
    started.catch(end);
    return {
      stop: () => {
        ended = true;
        void started.then((tapping) => tapping.stop(), noop).finally(() => this.release(user));
      },
      onClosed: (closed) => void closedListeners.push(closed),
    };
  }

  /** `media` died with its worker (the room took it out): if it is the recording shard, its recordings fail and its taps end. */
  lost(media: MediaShard): void {
    // While the shard is still opening, the room's only recording shard is the one opening.
    if (!this.opening || (this.current && media !== this.current)) return;
    this.opening = undefined;
    this.current = undefined;
    const error = new Error(RECORDING_SHARD_LOST);
    for (const user of [...this.users]) user.lost(error);
    this.users.clear();
  }

  private use(user: User): Promise<MediaShard> {
    this.users.add(user);
    if (!this.opening) {
      const opening = this.host.open();
      this.opening = opening;
      opening.then(
        (media) => {
          if (this.opening === opening) this.current = media;
        },
        () => {
          if (this.opening === opening) this.opening = undefined;
        },
      );
    }
    return this.opening;
  }

  private release(user: User): void {
    if (!this.users.delete(user) || this.users.size > 0 || !this.opening) return;
    const opening = this.opening;
    // Decided once the shard is open: a recording or tap that started meanwhile keeps it (no second shard).
    opening.then((media) => {
      if (this.opening !== opening || this.users.size > 0) return;
      this.opening = undefined;
      this.current = undefined;
      this.host.close(media);
    }, noop);
  }
}

function noop(): void {}
