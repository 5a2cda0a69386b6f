/**
 * Transcription real-time factor and summary time for 1, 10 (and, with BENCH_TRANSCRIPTION_LONG=1, 60) minutes
 * of speech (BENCH_TRANSCRIPTION_MINUTES=60 runs only that length): a scripted meeting spoken by flite's rms voice, concatenated to length and encoded as webm/opus like
 * a recording, then run through the transcribe job's own steps (ffmpeg to 16 kHz mono wav, pocketsphinx) and the
 * extractive summarizer. CPU is the children's user + system time (ffmpeg, pocketsphinx run one at a time, one core).
 * Target (issue 9): real-time factor under 0.3 on one core. See bench/README.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { prepareTracks } from '../../service/src/transcripts/audio';
import { PocketsphinxSpeechToText } from '../../service/src/transcripts/pocketsphinx';
import { summarizeExtractive } from '../../service/src/summaries/extractive';
import { MEETING_SCRIPT, mediaDuration, speechRecording, wordErrorRate } from '../../service/src/testing/speech';
import { cleanUpOnExit, machine, makeTempDir, markdownTable, progress, runMain, smokeOr, summarize, verdict } from '../support';

/** The smoke speaks the first two lines once (a few seconds of speech). */
const SCRIPT = smokeOr(MEETING_SCRIPT, MEETING_SCRIPT.slice(0, 2));
const MINUTES = process.env.BENCH_TRANSCRIPTION_MINUTES
  ? process.env.BENCH_TRANSCRIPTION_MINUTES.split(',').map(Number)
  : process.env.BENCH_TRANSCRIPTION_LONG === '1'
    ? [1, 10, 60]
    : smokeOr([1, 10], [0]);
const TARGET_RTF = 0.3;
const SUMMARY_RUNS = smokeOr(5, 1);

/** CPU seconds of this process's finished children (/proc/self/stat cutime + cstime). */
function childCpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

async function measure<T>(work: () => Promise<T>): Promise<{ result: T; wall: number; cpu: number }> {
  const cpuBefore = childCpuSeconds();
  const started = Date.now();
  const result = await work();
  return { result, wall: (Date.now() - started) / 1000, cpu: childCpuSeconds() - cpuBefore };
}

async function main(): Promise<void> {
  cleanUpOnExit();
  const dir = await makeTempDir('svc-bench-stt-');
  const once = path.join(dir, 'once.webm');
  speechRecording(SCRIPT, once);
  const scriptSeconds = mediaDuration(once);
  const engine = new PocketsphinxSpeechToText();
  const rows: (string | number)[][] = [];
  let worstRtf = 0;
  for (const minutes of MINUTES) {
    const repeat = Math.max(1, Math.round((minutes * 60) / scriptSeconds));
    const file = path.join(dir, `${minutes}min.webm`);
    speechRecording(SCRIPT, file, { repeat });
    const audio = mediaDuration(file);
    progress(`${minutes} min: ${audio.toFixed(0)} s of speech; converting and transcribing`);
    const work = await makeTempDir('svc-bench-tracks-');
    const prepared = await measure(() => prepareTracks(file, work));
    const recognized = await measure(() => engine.transcribe(prepared.result[0]!));
    const segments = recognized.result;
    const wer = wordErrorRate(Array.from({ length: repeat }, () => SCRIPT.join(' ')).join(' '), segments.map((s) => s.text).join(' '));
    const input = { segments, participants: ['Robert Brown'], meetingDate: '2026-11-23T15:00:00Z' };
    const summaryMs = summarize(
      Array.from({ length: SUMMARY_RUNS }, () => {
        const started = process.hrtime.bigint();
        summarizeExtractive(input);
        return Number(process.hrtime.bigint() - started) / 1e6;
      }),
    ).p50;
    const cpu = prepared.cpu + recognized.cpu;
    worstRtf = Math.max(worstRtf, cpu / audio);
    rows.push([
      minutes,
      audio.toFixed(0),
      segments.length,
      (prepared.cpu / audio).toFixed(3),
      (recognized.cpu / audio).toFixed(3),
      (cpu / audio).toFixed(3),
      ((prepared.wall + recognized.wall) / audio).toFixed(3),
      wer.toFixed(3),
      summaryMs.toFixed(1),
    ]);
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nTranscription (ffmpeg -> 16 kHz wav -> pocketsphinx en-us) and extractive summary of flite speech; ${machine()}\n\n` +
      markdownTable(
        [
          'minutes',
          'audio s',
          'segments',
          'RTF ffmpeg (CPU)',
          'RTF pocketsphinx (CPU)',
          'RTF total (CPU)',
          'RTF total (wall)',
          'WER',
          'summary ms (p50)',
        ],
        rows,
        [0, 1, 2, 3, 4, 5, 6, 7, 8],
      ) +
      `\n\nReal-time factor (CPU, one core) under ${TARGET_RTF} at every length: ${verdict(worstRtf < TARGET_RTF)}` +
      (MINUTES.includes(60) ? '\n' : ' (60 minutes not run: set BENCH_TRANSCRIPTION_LONG=1)\n'),
  );
}

runMain(main);
