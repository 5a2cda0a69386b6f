import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { mergeTrackFiles, type FinishedTrack } from '../media/recorder';
import type { RecordedTrack } from '../recordings/recordings.service';

/** One participant of a synthetic meeting: their flite voice, their camera (a lavfi source), or none. */
export interface SyntheticParticipant {
  name: string;
  participantId: string;
  voice: string;
  /** A lavfi video source such as `testsrc2` or `smptebars`; no camera when absent. */
  camera?: string;
  /** Seconds after the meeting's start when their camera starts; 0 by default. */
  cameraFrom?: number;
}

/** A synthetic meeting: who takes part, what they say (in turns), an optional screen share, and how long it lasts. */
export interface SyntheticMeeting {
  participants: SyntheticParticipant[];
  /** Sentence i is spoken by participant i % n, one after the other with a pause; repeated until the meeting ends. */
  sentences: string[];
  durationSeconds: number;
  /** A screen share of one plain colour (ffmpeg colour name) by participant `by`, from `from` to `to` seconds. */
  screen?: { by: number; from: number; to: number; color: string };
  pauseSeconds?: number;
}

/**
 * Writes a per-track file as the room recorder makes one (`tracks.mkv` in `dir`: each microphone as Opus, each
 * camera and the screen share as VP8, merged with their offsets by the recorder's own merge) and returns its tracks.
 */
export async function syntheticTracksFile(meeting: SyntheticMeeting, dir: string): Promise<{ file: string; tracks: RecordedTrack[] }> {
  fs.mkdirSync(dir, { recursive: true });
  const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args]);
  const d = meeting.durationSeconds;
  const n = meeting.participants.length;
  // Each sentence once per voice, then the turns: participant i % n says sentence i, then a pause.
  const spoken = meeting.sentences.map((sentence, i) => {
    const p = meeting.participants[i % n]!;
    const raw = path.join(dir, `raw-${i}.wav`);
    execFileSync('flite', ['-voice', p.voice, '-t', sentence, '-o', raw]);
    const wav = path.join(dir, `s-${i}.wav`);
    ffmpeg('-i', raw, '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', wav);
    return { wav, seconds: fs.statSync(wav).size / 32_000 };
  });
  const pause = meeting.pauseSeconds ?? 1;
  const delays: string[][] = meeting.participants.map(() => []);
  for (let t = 0, i = 0; t < d; i++) {
    const s = spoken[i % spoken.length]!;
    if (t + s.seconds > d) break;
    delays[i % n]!.push(`${i % spoken.length}@${Math.round(t * 1000)}`);
    t += s.seconds + pause;
  }
  const tracks: FinishedTrack[] = [];
  meeting.participants.forEach((p, k) => {
    const owner = { participant_id: p.participantId, name: p.name };
    const mic = path.join(dir, `mic-${k}.mka`);
    const turns = delays[k]!.map((spec) => spec.split('@').map(Number) as [number, number]);
    const inputs = turns.flatMap(([s]) => ['-i', spoken[s]!.wav]);
    const graph = turns.map(([, ms], j) => `[${j + 1}:a]adelay=${ms}|${ms}[d${j}]`);
    const mix = `[0:a]${turns.map((_, j) => `[d${j}]`).join('')}amix=inputs=${turns.length + 1}:normalize=0:dropout_transition=0,atrim=duration=${d}[out]`;
    ffmpeg(
      '-f',
      'lavfi',
      '-i',
      `anullsrc=r=16000:cl=mono:d=${d}`,
      ...inputs,
      '-filter_complex',
      [...graph, mix].join(';'),
      '-map',
      '[out]',
      '-ar',
      '48000',
      '-c:a',
      'libopus',
      '-b:a',
      '32k',
      mic,
    );
    tracks.push({ filePath: mic, kind: 'audio', source: 'microphone', owner, offsetSeconds: 0, endSeconds: d });
    if (p.camera) {
      const from = p.cameraFrom ?? 0;
      const camera = path.join(dir, `camera-${k}.mkv`);
      ffmpeg('-f', 'lavfi', '-i', `${p.camera}=s=640x360:r=15:d=${d - from}`, ...vp8, camera);
      tracks.push({ filePath: camera, kind: 'video', source: 'camera', owner, offsetSeconds: from, endSeconds: d });
    }
  });
  if (meeting.screen) {
    const { by, from, to, color } = meeting.screen;
    const p = meeting.participants[by]!;
    const screen = path.join(dir, 'screen.mkv');
    ffmpeg('-f', 'lavfi', '-i', `color=c=${color}:s=1280x720:r=5:d=${to - from}`, ...vp8, screen);
    tracks.push({
      filePath: screen,
      kind: 'video',
      source: 'screen',
      owner: { participant_id: p.participantId, name: p.name },
      offsetSeconds: from,
      endSeconds: to,
    });
  }
  const file = path.join(dir, 'tracks.mkv');
  return { file, tracks: await mergeTrackFiles('ffmpeg', tracks, file) };
}

const vp8 = ['-pix_fmt', 'yuv420p', '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '400k', '-g', '60'];
