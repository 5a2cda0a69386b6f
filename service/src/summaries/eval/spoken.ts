import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runProgram } from '../../transcripts/audio';
import { PocketsphinxSpeechToText } from '../../transcripts/pocketsphinx';
import type { TranscriptSegment } from '../../transcripts/transcripts.repo';
import type { ScriptedMeeting } from './meetings';

const SAMPLE_RATE = 16_000;

/**
 * Speaks a scripted meeting with flite (each participant's voice) into one 16 kHz track per participant, as the
 * room recorder keeps them (the others' turns are silence on a track), runs pocketsphinx on each track as the
 * transcribe job does and returns the merged segments with their speakers. `pauseSeconds` of silence follow each
 * sentence: 0 makes every turn one run-on.
 */
export async function transcribeScriptedMeeting(meeting: ScriptedMeeting, pauseSeconds: number): Promise<TranscriptSegment[]> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-summary-eval-'));
  try {
    const speakers = Object.keys(meeting.voices);
    const tracks = new Map<string, Buffer[]>(speakers.map((s) => [s, []]));
    const pause = Buffer.alloc(Math.round(pauseSeconds * SAMPLE_RATE) * 2);
    let n = 0;
    for (const turn of meeting.turns) {
      for (const sentence of turn.sentences) {
        const wav = path.join(work, `s${n++}.wav`);
        await runProgram('flite', ['-voice', meeting.voices[turn.speaker]!, '-t', sentence, '-o', wav]);
        const samples = pcmOf(await fs.readFile(wav), wav);
        for (const [speaker, parts] of tracks) parts.push(speaker === turn.speaker ? samples : Buffer.alloc(samples.length), pause);
      }
    }
    const engine = new PocketsphinxSpeechToText();
    const segments: TranscriptSegment[] = [];
    for (const [speaker, parts] of tracks) {
      const wavPath = path.join(work, `track-${speakers.indexOf(speaker)}.wav`);
      await fs.writeFile(wavPath, wavFile(Buffer.concat(parts)));
      segments.push(...(await engine.transcribe({ wavPath, speaker, participantId: null })));
    }
    return segments.sort((a, b) => a.start - b.start);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** The 16-bit samples of a 16 kHz mono PCM wav file (what flite writes for its 16 kHz voices). */
function pcmOf(file: Buffer, name: string): Buffer {
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.readUInt16LE(22) !== 1 || file.readUInt32LE(24) !== SAMPLE_RATE) {
    throw new Error(`${name} is not a 16 kHz mono wav file (use a 16 kHz flite voice)`);
  }
  let at = 12;
  while (at + 8 <= file.length) {
    const size = file.readUInt32LE(at + 4);
    if (file.toString('ascii', at, at + 4) === 'data') return file.subarray(at + 8, at + 8 + size);
    at += 8 + size + (size % 2);
  }
  throw new Error(`${name} has no data chunk`);
}

function wavFile(pcm: Buffer): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
