/**
 * Renders a composite MP4 (H.264 + AAC, faststart) from a recording's per-track file with ffmpeg, in one pass:
 * measures each microphone's level per window (who speaks when), plans the timeline (plan.ts), renders, and
 * verifies the result with ffprobe (one video and one audio stream, as long as the recording).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import type { RecordedTrack } from '../recordings.service';
import { filterGraph, speakerWindows, timeline, type FrameOptions, type RecordingLayout } from './plan';

/** The font of the name labels (Debian's fonts-dejavu-core, installed by scripts/ensure-media-tools.sh). */
export const LABEL_FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
/** Seconds per level measurement of a microphone. */
const LEVEL_WINDOW_S = 0.5;
const LEVEL_RATE = 8_000;

/** How to render; frame size and rate default to 640x360 at 15 fps. */
export interface RenderOptions {
  layout: RecordingLayout;
  frame?: Partial<FrameOptions>;
  /** x264 preset; default veryfast. */
  preset?: string;
  /** ffmpeg threads (encoder and filters); default: ffmpeg's choice. */
  threads?: number;
  ffmpeg?: string;
  ffprobe?: string;
  signal?: AbortSignal;
}

/** What the render made. */
export interface RenderedComposite {
  sizeBytes: number;
  durationSeconds: number;
}

/** Runs a program to completion, collecting stdout as a buffer; rejects with its last words. */
function run(program: string, args: string[], signal?: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const out: Buffer[] = [];
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-1_500)));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`${program} failed (${code}): ${tail.trim()}`)),
    );
  });
}

/** Duration (seconds) and stream kinds of a media file, by ffprobe. */
export async function probeMedia(
  file: string,
  ffprobe = 'ffprobe',
): Promise<{ duration: number; streams: { codec_type: string; codec_name: string }[] }> {
  const out = await run(ffprobe, ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type,codec_name', '-of', 'json', file]);
  const info = JSON.parse(out.toString()) as { format?: { duration?: string }; streams?: { codec_type: string; codec_name: string }[] };
  return { duration: Number(info.format?.duration ?? NaN), streams: info.streams ?? [] };
}

/** The level (dBFS RMS) of one audio stream of `file` per window from the file's start. */
export async function audioLevels(file: string, stream: number, opts: { ffmpeg?: string; signal?: AbortSignal } = {}): Promise<number[]> {
  const args = ['-nostdin', '-v', 'error', '-i', file, '-map', `0:a:${stream}`, '-af', 'aresample=async=1:first_pts=0'];
  const pcm = await run(opts.ffmpeg ?? 'ffmpeg', [...args, '-ac', '1', '-ar', String(LEVEL_RATE), '-f', 's16le', 'pipe:1'], opts.signal);
  const perWindow = LEVEL_RATE * LEVEL_WINDOW_S;
  const samples = Math.floor(pcm.length / 2);
  const levels: number[] = [];
  for (let start = 0; start < samples; start += perWindow) {
    let sum = 0;
    const end = Math.min(samples, start + perWindow);
    for (let i = start; i < end; i++) {
      const v = pcm.readInt16LE(i * 2) / 32_768;
      sum += v * v;
    }
    levels.push(10 * Math.log10(sum / Math.max(1, end - start) + 1e-12));
  }
  return levels;
}

/**
 * Renders `tracksFile` (the recording's per-track file, whose tracks `tracks` describes) into `outFile`, and checks
 * it: internal_error when ffmpeg fails or the result has not exactly one video and one audio stream lasting
 * `durationSeconds` within 1 s.
 */
export async function renderComposite(
  tracksFile: string,
  tracks: RecordedTrack[],
  durationSeconds: number,
  outFile: string,
  opts: RenderOptions,
): Promise<RenderedComposite> {
  const frame: FrameOptions = { width: 640, height: 360, fps: 15, ...opts.frame };
  const ffmpeg = opts.ffmpeg ?? 'ffmpeg';
  const work = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'svc-composite-'));
  try {
    const audio = tracks.filter((t) => t.kind === 'audio');
    const levels = await Promise.all(audio.map((t) => audioLevels(tracksFile, t.stream, { ffmpeg, signal: opts.signal })));
    const byStream: number[][] = [];
    audio.forEach((t, n) => (byStream[t.stream] = levels[n]!));
    const speakers = speakerWindows(audio, byStream, LEVEL_WINDOW_S, durationSeconds);
    const bounded = tracks.map((t) => ({ ...t, end_seconds: Math.min(t.end_seconds, durationSeconds) }));
    const segments = timeline(bounded, speakers, opts.layout, frame);
    const { graph, labels } = filterGraph(bounded, segments, { ...frame, durationSeconds, fontFile: LABEL_FONT, labelDir: work });
    for (const [name, text] of labels) await fs.promises.writeFile(path.join(work, name), text);
    const graphFile = path.join(work, 'graph.txt');
    await fs.promises.writeFile(graphFile, graph);
    const threads = opts.threads ? ['-threads', String(opts.threads), '-filter_complex_threads', String(opts.threads)] : [];
    const args = [
      '-nostdin',
      '-v',
      'error',
      ...threads,
      '-i',
      tracksFile,
      '-filter_complex_script',
      graphFile,
      '-map',
      '[vout]',
      '-map',
      '[aout]',
    ];
    args.push('-c:v', 'libx264', '-preset', opts.preset ?? 'veryfast', '-crf', '28', '-pix_fmt', 'yuv420p', '-r', String(frame.fps));
    args.push('-g', String(frame.fps * 4), '-c:a', 'aac', '-b:a', '96k', '-ar', '48000', '-ac', '2');
    args.push('-t', durationSeconds.toFixed(3), '-movflags', '+faststart', '-f', 'mp4', '-y', outFile);
    try {
      await run(ffmpeg, args, opts.signal);
    } catch (error) {
      if (opts.signal?.aborted) throw error;
      throw new AppError('internal_error', `The composite could not be rendered: ${(error as Error).message}`);
    }
    return await verifyComposite(outFile, durationSeconds, opts.ffprobe);
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}

/** Checks a rendered composite: one H.264 video and one AAC audio stream, lasting `durationSeconds` within 1 s. */
export async function verifyComposite(file: string, durationSeconds: number, ffprobe = 'ffprobe'): Promise<RenderedComposite> {
  const probe = await probeMedia(file, ffprobe).catch((error: Error) => {
    throw new AppError('internal_error', `The composite is unreadable: ${error.message}`);
  });
  const video = probe.streams.filter((s) => s.codec_type === 'video');
  const audio = probe.streams.filter((s) => s.codec_type === 'audio');
  if (video.length !== 1 || audio.length !== 1) {
    throw new AppError('internal_error', `The composite has ${video.length} video and ${audio.length} audio streams (expected 1 and 1)`);
  }
  if (!(Math.abs(probe.duration - durationSeconds) <= 1)) {
    throw new AppError('internal_error', `The composite lasts ${probe.duration} s, the recording ${durationSeconds} s`);
  }
  return { sizeBytes: (await fs.promises.stat(file)).size, durationSeconds: probe.duration };
}
