import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A scripted meeting (about 36 s spoken) with a decision and an action item whose owner is Robert, due Wednesday. */
export const MEETING_SCRIPT = [
  'Good morning everyone, thanks for joining the weekly planning meeting.',
  'The new billing service passed all of its tests on the staging server last night.',
  'Customers asked for a faster search page and better reports.',
  'After a long discussion we decided to launch the billing service on Friday.',
  'Action item: Robert will update the customer documentation by Wednesday.',
  'The support team will watch the error logs during the first week.',
  'Thank you all, see you next week.',
];

/**
 * Speaks `sentences` with flite's rms voice (the voice pocketsphinx understands best), with a pause of `pauseSeconds`
 * (1 by default) after each as people leave between turns, and encodes the result as webm/opus at `outPath`, as a
 * real recording is; `repeat` concatenates the whole script that many times.
 */
export function speechRecording(sentences: string[], outPath: string, opts: { repeat?: number; pauseSeconds?: number } = {}): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-speech-'));
  try {
    const pause = path.join(work, 'pause.wav');
    const silence = `anullsrc=r=16000:cl=mono:d=${opts.pauseSeconds ?? 1}`;
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', silence, '-c:a', 'pcm_s16le', pause]);
    const parts = sentences.flatMap((sentence, i) => {
      const wav = path.join(work, `s${i}.wav`);
      execFileSync('flite', ['-voice', 'rms', '-t', sentence, '-o', wav]);
      return [wav, pause];
    });
    const list = path.join(work, 'list.txt');
    const once = parts.map((p) => `file '${p}'\n`).join('');
    fs.writeFileSync(list, once.repeat(opts.repeat ?? 1));
    execFileSync('ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      '-y',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      list,
      '-ar',
      '48000',
      '-c:a',
      'libopus',
      outPath,
    ]);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A meeting as the room recorder stores one: one webm/opus track per speaker, each holding that speaker's turns at
 * their times and silence while the others speak. Sentence i is spoken by speaker i % voices.length with that
 * speaker's flite voice, `pauseSeconds` (1 by default) after each turn.
 */
export function turnTakingRecording(sentences: string[], voices: string[], outPath: string, opts: { pauseSeconds?: number } = {}): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-turns-'));
  const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args]);
  const silence = (seconds: number, file: string) =>
    ffmpeg('-f', 'lavfi', '-i', `anullsrc=r=16000:cl=mono:d=${seconds}`, '-c:a', 'pcm_s16le', file);
  try {
    const pause = path.join(work, 'pause.wav');
    silence(opts.pauseSeconds ?? 1, pause);
    const lists: string[][] = voices.map(() => []);
    sentences.forEach((sentence, i) => {
      const speaker = i % voices.length;
      const raw = path.join(work, `raw${i}.wav`);
      const spoken = path.join(work, `s${i}.wav`);
      const quiet = path.join(work, `q${i}.wav`);
      execFileSync('flite', ['-voice', voices[speaker]!, '-t', sentence, '-o', raw]);
      ffmpeg('-i', raw, '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', spoken);
      silence(mediaDuration(spoken), quiet);
      lists.forEach((list, track) => list.push(track === speaker ? spoken : quiet, pause));
    });
    const tracks = lists.map((list, track) => {
      const listFile = path.join(work, `list${track}.txt`);
      fs.writeFileSync(listFile, list.map((p) => `file '${p}'\n`).join(''));
      const wav = path.join(work, `track${track}.wav`);
      ffmpeg('-f', 'concat', '-safe', '0', '-i', listFile, '-c:a', 'pcm_s16le', wav);
      return wav;
    });
    const inputs = tracks.flatMap((wav) => ['-i', wav]);
    const maps = tracks.flatMap((_wav, track) => ['-map', `${track}:a`]);
    ffmpeg(...inputs, ...maps, '-ar', '48000', '-c:a', 'libopus', '-f', 'webm', outPath);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** `seconds` of digital silence as webm/opus at `outPath`. */
export function silentRecording(seconds: number, outPath: string): void {
  const source = `anullsrc=r=48000:cl=mono:d=${seconds}`;
  execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', source, '-c:a', 'libopus', outPath]);
}

/** Duration of a media file in seconds, measured by ffprobe. */
export function mediaDuration(filePath: string): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', filePath]);
  return Number(String(out).trim());
}

/** The words of a text as speech-to-text writes them: lowercase, without punctuation. */
export function normalizedWords(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9']+/g) ?? [];
}

/**
 * Word-level edit distance (substitutions + insertions + deletions) of `reference` against `hypothesis`, over the
 * reference's length. With `anyStretch`, words the hypothesis has before and after its best-matching stretch cost nothing.
 */
function wordErrors(reference: string, hypothesis: string, anyStretch: boolean): number {
  const ref = normalizedWords(reference);
  const hyp = normalizedWords(hypothesis);
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => (anyStretch ? 0 : j));
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  if (ref.length === 0) return hyp.length === 0 || anyStretch ? 0 : 1;
  return (anyStretch ? Math.min(...previous) : previous[hyp.length]!) / ref.length;
}

/** Word error rate: the word-level Levenshtein distance (substitutions + insertions + deletions) over the reference's length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  return wordErrors(reference, hypothesis, false);
}

/**
 * The word error rate of `reference` against the best-matching stretch of `hypothesis`: words the hypothesis has
 * before and after that stretch cost nothing. For a recording that began and ended at arbitrary points of a script
 * spoken in a loop, it measures how well one whole pass of the script was transcribed.
 */
export function bestPassWordErrorRate(reference: string, hypothesis: string): number {
  return wordErrors(reference, hypothesis, true);
}
