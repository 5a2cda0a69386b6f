import { execFile } from 'node:child_process';
import path from 'node:path';
import type { TrackOwner } from '../recordings/recordings.service';
import { UnusableRecordingError, type SpeechTrack } from './speech-to-text';

/** A track whose loudest sample is below this (dBFS) counts as silent. */
const SILENCE_DB = -50;

/** What a finished child process printed. */
interface ProcessOutput {
  stdout: string;
  stderr: string;
}

/** Runs a program to completion; rejects with the tail of its stderr (or a hint to install it) when it fails. */
export function runProgram(program: string, args: string[], signal?: AbortSignal): Promise<ProcessOutput> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { maxBuffer: 256 * 1024 * 1024, signal }, (err, stdout, stderr) => {
      if (!err) return resolve({ stdout: String(stdout), stderr: String(stderr) });
      const tail = String(stderr).trim().split('\n').slice(-2).join(' ').slice(0, 400);
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      reject(
        new Error(
          missing ? `${program} is not installed (run scripts/ensure-media-tools.sh)` : `${program} failed: ${tail || err.message}`,
        ),
      );
    });
  });
}

/** One audio stream of a recording file, as ffprobe reports it. */
interface AudioStream {
  index: number;
  tags?: Record<string, string>;
}

/**
 * Converts every audio track of a recording to a 16 kHz mono wav file in `workDir`. Each track's speaker is its
 * owner in `owners` (whose microphone the room recorder put on it, in the file's audio track order); a recording
 * that does not say (`owners` null, or listing another number of tracks than the file has) leaves every speaker
 * null, except that a track's `title` tag, when a file has one, names it. Throws UnusableRecordingError for a file
 * ffmpeg cannot read, one without audio, or pure silence.
 */
export async function prepareTracks(
  recordingPath: string,
  workDir: string,
  signal?: AbortSignal,
  owners: (TrackOwner | null)[] | null = null,
): Promise<SpeechTrack[]> {
  const streams = await audioStreams(recordingPath);
  // Naming a voice wrongly is worse than not naming it: owners only count when they describe this file's tracks.
  const trusted = owners?.length === streams.length ? owners : null;
  const tracks: SpeechTrack[] = [];
  for (const [n, stream] of streams.entries()) {
    const wavPath = path.join(workDir, `track-${n}.wav`);
    // Browsers stop sending audio in silences (Opus DTX): fill those gaps, and a late track's start, with silence, so that
    // transcript times stay times into the recording.
    const resample = ['-af', 'aresample=async=1:first_pts=0', '-ac', '1', '-ar', '16000'];
    const args = ['-nostdin', '-v', 'error', '-y', '-i', recordingPath, '-map', `0:${stream.index}`, ...resample];
    try {
      await runProgram('ffmpeg', [...args, '-c:a', 'pcm_s16le', wavPath], signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new UnusableRecordingError(`the recording cannot be decoded (corrupt or truncated): ${(err as Error).message}`);
    }
    if ((await peakLevel(wavPath)) < SILENCE_DB) continue;
    const owner = trusted?.[n];
    const title = stream.tags?.title ?? stream.tags?.TITLE ?? null;
    tracks.push({ wavPath, speaker: owner?.name ?? title, participantId: owner?.participant_id ?? null });
  }
  if (tracks.length === 0) throw new UnusableRecordingError('the recording is silent: no track has any sound');
  return tracks;
}

async function audioStreams(recordingPath: string): Promise<AudioStream[]> {
  let probe: { streams?: AudioStream[] };
  try {
    const args = ['-v', 'error', '-select_streams', 'a', '-show_entries', 'stream=index:stream_tags', '-of', 'json', recordingPath];
    probe = JSON.parse((await runProgram('ffprobe', args)).stdout) as { streams?: AudioStream[] };
  } catch (err) {
    throw new UnusableRecordingError(`the recording cannot be decoded (corrupt or not a media file): ${(err as Error).message}`);
  }
  if (!probe.streams?.length) throw new UnusableRecordingError('the recording has no audio track');
  return probe.streams;
}

/** The loudest sample of an audio file in dBFS (-Infinity for digital silence), measured by ffmpeg's volumedetect. */
export async function peakLevel(audioPath: string): Promise<number> {
  const { stderr } = await runProgram('ffmpeg', ['-nostdin', '-v', 'info', '-i', audioPath, '-af', 'volumedetect', '-f', 'null', '-']);
  const match = /max_volume: (-?[\d.]+|-inf) dB/.exec(stderr);
  return !match || match[1] === '-inf' ? -Infinity : Number(match[1]);
}
