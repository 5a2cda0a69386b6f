/**
 * Records a room: every producer (each microphone, camera and screen share, whenever it starts, however many)
 * goes to its own ffmpeg, which copies it (`-c copy`, no transcoding) into its own Matroska file (see
 * recorder-track.ts). Each track keeps its owner, source and start offset. When the recording stops, the track
 * files are merged, still without transcoding, into one Matroska file: the audio tracks first (in order of start),
 * then the video tracks, each shifted by its offset so that every track is aligned with the others. That file is
 * the recording's per-track source (`kind: "tracks"`): transcription reads one speaker per audio track from it and
 * the composite render (recordings/composite/) mixes and lays it out.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { types } from 'mediasoup';
import type { MediaRecording, RecordedMedia, RecordedTrack, TrackOwner } from '../rooms/room-media.interface';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { LOOPBACK, probeRecordedFile } from './ffmpeg';
import { TrackRecorder, type FinishedTrack } from './recorder-track';

export type { FinishedTrack };

/** How a recorder runs; every field has a default. */
export interface RecorderOptions {
  /** The ffmpeg and ffprobe executables; default from PATH. */
  ffmpeg?: string;
  ffprobe?: string;
  /** How long each track's ffmpeg may take to finish its file after SIGINT before it is killed; default 5000 ms. */
  stopTimeoutMs?: number;
  logger?: Logger;
}

/** A producer the recorder may consume, with what it sends and whose it is. */
export interface RecordableProducer {
  producer: types.Producer;
  source: string;
  /** Its participant and their name; absent for a sender that is no participant (a benchmark's plain transport). */
  owner?: TrackOwner;
}

const toolsChecked = new Map<string, string | null>();

/** Null when ffmpeg and ffprobe run, else why recording is unavailable (checked once per process). */
export function recordingUnavailableReason(ffmpeg = 'ffmpeg', ffprobe = 'ffprobe'): string | null {
  const key = `${ffmpeg}\0${ffprobe}`;
  if (!toolsChecked.has(key)) {
    const missing = [ffmpeg, ffprobe].filter((bin) => spawnSync(bin, ['-version'], { stdio: 'ignore' }).status !== 0);
    toolsChecked.set(
      key,
      missing.length === 0
        ? null
        : `Recording is unavailable: ${missing.join(' and ')} not found (run scripts/ensure-media-tools.sh as root, or apt-get install ffmpeg)`,
    );
  }
  return toolsChecked.get(key)!;
}

interface Running {
  track: TrackRecorder;
  started: Promise<void>;
  /** Set once the track was stopped (its producer closed, or the recording stopped). */
  finished?: Promise<FinishedTrack | null>;
}

/** One running recording of a router's producers: one file per track, merged into one file at the end. */
export class RoomRecorder implements MediaRecording {
  private readonly running: Running[] = [];
  private readonly startedAt = Date.now();
  private readonly dir: string;
  private socket: Socket | undefined;
  private stopping = false;
  private failed = false;
  private failureListeners: ((error: Error) => void)[] = [];
  private readonly opts: Required<Omit<RecorderOptions, 'logger'>> & { logger?: Logger };

  constructor(
    private readonly router: types.Router,
    private readonly filePath: string,
    options: RecorderOptions = {},
  ) {
    this.opts = {
      ffmpeg: options.ffmpeg ?? 'ffmpeg',
      ffprobe: options.ffprobe ?? 'ffprobe',
      stopTimeoutMs: options.stopTimeoutMs ?? 5_000,
      logger: options.logger,
    };
    const reason = recordingUnavailableReason(this.opts.ffmpeg, this.opts.ffprobe);
    if (reason) throw new AppError('conflict', reason);
    this.dir = `${filePath}.tracks`;
  }

  /** Records a producer from now on, on its own track. */
  add({ producer, source, owner }: RecordableProducer): void {
    if (this.stopping || producer.closed) return;
    if (this.running.some((r) => r.track.producerId === producer.id)) return;
    const n = this.running.length;
    const track = new TrackRecorder({
      router: this.router,
      producer,
      source,
      owner: owner ?? null,
      filePath: path.join(this.dir, `${String(n).padStart(3, '0')}-${producer.kind}-${source.replace(/[^a-z]/gi, '')}.mkv`),
      ffmpeg: this.opts.ffmpeg,
      startedAt: this.startedAt,
      socket: () => this.socket,
      onCrash: (error) => this.fail(error),
    });
    const running: Running = { track, started: Promise.resolve() };
    running.started = this.ready().then(() => track.start());
    running.started.catch((error: unknown) => this.log(`could not record ${source}`, error));
    this.running.push(running);
    // A track whose producer closed (a screen share that ended, a participant who left) is finished at once.
    producer.observer.once('close', () => {
      if (!this.stopping) running.finished ??= this.finishTrack(running);
    });
  }

  /** Kept for callers that start recordings in rooms with media; tracks start as they are added. */
  begin(): void {}

  onFailure(listener: (error: Error) => void): void {
    this.failureListeners.push(listener);
  }

  /** Stops every track, merges the track files into one and measures it; a recording without any media fails. */
  async stop(): Promise<RecordedMedia> {
    this.stopping = true;
    const finished = await Promise.all(this.running.map((r) => (r.finished ??= this.finishTrack(r))));
    this.socket?.close();
    this.socket = undefined;
    const tracks = finished.filter((t): t is FinishedTrack => t !== null && fs.existsSync(t.filePath) && fs.statSync(t.filePath).size > 0);
    if (tracks.length === 0) {
      await fs.promises.rm(this.dir, { recursive: true, force: true });
      throw new AppError('conflict', 'Nothing was recorded: nobody sent audio or video');
    }
    const merged = await mergeTrackFiles(this.opts.ffmpeg, tracks, this.filePath);
    const file = await probeRecordedFile(this.opts.ffprobe, this.filePath, '');
    await fs.promises.rm(this.dir, { recursive: true, force: true });
    return {
      ...file,
      contentType: 'video/x-matroska',
      audioTrackOwners: merged.filter((t) => t.kind === 'audio').map((t) => t.owner),
      tracks: merged,
    };
  }

  private async ready(): Promise<void> {
    if (this.socket) return;
    await fs.promises.mkdir(this.dir, { recursive: true });
    if (this.socket) return;
    const socket = createSocket('udp4');
    this.socket = socket;
    socket.bind(0, LOOPBACK);
    await once(socket, 'listening');
  }

  private async finishTrack(running: Running): Promise<FinishedTrack | null> {
    await running.started.catch(() => undefined);
    try {
      const finished = await running.track.stop(this.opts.stopTimeoutMs);
      if (!finished) this.log(`a ${running.track.source} track sent no media: not recorded`, running.track.lastWords || undefined);
      return finished;
    } catch (error) {
      this.log('a track did not finish', error);
      return null;
    }
  }

  private fail(error: Error): void {
    if (this.stopping || this.failed) return;
    this.failed = true;
    this.stopping = true;
    for (const r of this.running) r.track.abort();
    this.socket?.close();
    this.socket = undefined;
    for (const listener of this.failureListeners) listener(error);
  }

  private log(message: string, error?: unknown): void {
    this.opts.logger?.warn(message, { file: path.basename(this.filePath), ...(error ? { error: String(error) } : {}) });
  }
}

/**
 * Copies track files into one Matroska file at `outFile` (no transcoding): audio first, then video, each in order of
 * start and shifted by its offset from the first track's start, titled after its owner; returns the file's tracks.
 */
export async function mergeTrackFiles(ffmpeg: string, tracks: FinishedTrack[], outFile: string): Promise<RecordedTrack[]> {
  const ordered = [...tracks].sort((a, b) => (a.kind === b.kind ? a.offsetSeconds - b.offsetSeconds : a.kind === 'audio' ? -1 : 1));
  const first = Math.min(...ordered.map((t) => t.offsetSeconds));
  const args = ['-hide_banner', '-nostdin', '-v', 'error'];
  for (const track of ordered) args.push('-itsoffset', (track.offsetSeconds - first).toFixed(3), '-i', track.filePath);
  ordered.forEach((track, n) => {
    args.push('-map', `${n}:0`, `-metadata:s:${n}`, `title=${track.owner?.name ?? track.source} (${track.source})`);
  });
  args.push('-c', 'copy', '-f', 'matroska', '-y', outFile);
  await runFfmpeg(ffmpeg, args);
  const counters = { audio: 0, video: 0 };
  return ordered.map((track) => ({
    kind: track.kind,
    source: track.source,
    owner: track.owner,
    offset_seconds: Math.round((track.offsetSeconds - first) * 1000) / 1000,
    end_seconds: Math.round((track.endSeconds - first) * 1000) / 1000,
    stream: counters[track.kind]++,
  }));
}

/** Runs ffmpeg to completion; rejects with its last words. */
export function runFfmpeg(ffmpeg: string, args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'], signal });
    let tail = '';
    child.stderr.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-1_000)));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new AppError('internal_error', `ffmpeg failed (${code}): ${tail.trim()}`)),
    );
  });
}
