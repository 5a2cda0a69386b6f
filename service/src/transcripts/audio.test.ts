import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentRecording, speechRecording } from '../testing/speech';
import { prepareTracks, runProgram } from './audio';

describe('prepareTracks', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tracks-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("gives each participant's track of a multi-track recording its title as speaker, and skips a silent track", async () => {
    const [ada, bob, quiet] = ['ada.webm', 'bob.webm', 'quiet.webm'].map((f) => path.join(dir, f));
    speechRecording(['Hello from Ada.'], ada!);
    speechRecording(['Hello from Bob.'], bob!);
    silentRecording(2, quiet!);
    const multi = path.join(dir, 'multi.webm');
    execFileSync('ffmpeg', [
      ...['-nostdin', '-v', 'error', '-y', '-i', ada!, '-i', bob!, '-i', quiet!, '-map', '0:a', '-map', '1:a', '-map', '2:a', '-c', 'copy'],
      ...['-metadata:s:a:0', 'title=Ada Lovelace', '-metadata:s:a:1', 'title=Bob', '-metadata:s:a:2', 'title=Muted', multi],
    ]);
    const work = fs.mkdtempSync(path.join(dir, 'work-'));
    const tracks = await prepareTracks(multi, work);
    expect(tracks.map((t) => t.speaker)).toEqual(['Ada Lovelace', 'Bob']);
    for (const track of tracks) expect(fs.readFileSync(track.wavPath).readUInt32LE(24)).toBe(16_000);
  });

  it('names each track after its owner from the recording\'s track list, leaves a track without one null (not "Track 1"), and trusts no list of another length', async () => {
    const [ada, bob] = ['ada2.webm', 'bob2.webm'].map((f) => path.join(dir, f));
    speechRecording(['Hello from Ada.'], ada!);
    speechRecording(['Hello from Bob.'], bob!);
    const untitled = path.join(dir, 'untitled.webm');
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', ada!, '-i', bob!, '-map', '0:a', '-map', '1:a', '-c', 'copy', untitled]);
    const work = () => fs.mkdtempSync(path.join(dir, 'work-'));
    const owned = await prepareTracks(untitled, work(), undefined, [null, { participant_id: 'par_bob', name: 'Bob Jones' }]);
    expect(owned.map((t) => [t.speaker, t.participantId])).toEqual([
      [null, null],
      ['Bob Jones', 'par_bob'],
    ]);
    const unknown = await prepareTracks(untitled, work());
    expect(unknown.map((t) => [t.speaker, t.participantId])).toEqual([
      [null, null],
      [null, null],
    ]);
    const mismatched = await prepareTracks(untitled, work(), undefined, [{ participant_id: 'par_ada', name: 'Ada' }]);
    expect(mismatched.map((t) => t.speaker)).toEqual([null, null]);
  });

  it('leaves the speaker unknown for a single mixed track', async () => {
    const mixed = path.join(dir, 'mixed.webm');
    speechRecording(['Hello everyone.'], mixed);
    expect((await prepareTracks(mixed, fs.mkdtempSync(path.join(dir, 'work-')))).map((t) => t.speaker)).toEqual([null]);
  });
});

describe('runProgram', () => {
  it('kills the program when its signal aborts (a stopping service leaves no pocketsphinx behind)', async () => {
    const seconds = `600.${process.pid}`;
    const marker = `sleep ${seconds}`;
    const stop = new AbortController();
    const running = runProgram('sleep', [seconds], stop.signal);
    const alive = () => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(marker);
    for (let i = 0; i < 200 && !alive(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(alive()).toBe(true);
    stop.abort();
    await expect(running).rejects.toThrow();
    for (let i = 0; i < 200 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(alive()).toBe(false);
  });
});
