import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../cli';
import { JOB_RETRY_DELAYS_MS } from '../jobs/job.worker';
import { createJobWorker, recordingsDir } from '../services';
import { createLogger } from '../shared/logger';
import { SummarizeJob } from '../summaries/summarize.job';
import { Summarizer } from '../summaries/summarizer';
import { seedMeeting, seedParticipant } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';
import { silentRecording, speechRecording } from '../testing/speech';
import type { SpeechToText, SpeechTrack } from './speech-to-text';
import { TranscribeJob } from './transcribe.job';
import type { TranscriptSegment } from './transcripts.repo';
import type { TrackOwner } from '../recordings/recordings.service';

/** A stand-in engine: records the tracks it was given and answers what the test scripts. */
class ScriptedEngine implements SpeechToText {
  readonly name = 'scripted';
  tracks: { speaker: string | null; header: Buffer }[] = [];
  answer: () => TranscriptSegment[] = () => [];
  async transcribe(track: SpeechTrack): Promise<TranscriptSegment[]> {
    this.tracks.push({ speaker: track.speaker, header: fs.readFileSync(track.wavPath).subarray(0, 44) });
    // Like a plugged-in engine that does not copy the track's speaker: the job must name the segments itself.
    return this.answer().map((s) => ({ ...s, speaker: null, participant_id: null }));
  }
}

const SCRIPT = ['we decided to ship the release on friday', 'alice will write the release notes by wednesday'];

describe('the transcribe and summarize jobs', () => {
  let t: TestServer;
  const engine = new ScriptedEngine();
  const logger = createLogger('silent');
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());
  const worker = () => {
    const { recordings, transcripts, jobs, transaction, meetings, participants, summaries } = t.services;
    return createJobWorker(
      t.services,
      [
        new TranscribeJob({ recordings, transcripts, jobs, transaction, engine, logger }),
        new SummarizeJob({ meetings, participants, transcripts, summaries, summarizer: new Summarizer(undefined, logger), logger }),
      ],
      logger,
    );
  };
  /** Runs whatever earlier tests left queued, so each test's runOnce takes its own job. */
  const drain = async (w: { runOnce(): Promise<number> }) => {
    while ((await w.runOnce()) > 0);
  };
  const record = (meetingId: string, write: (file: string) => void, audioTrackOwners?: (TrackOwner | null)[]) => {
    const started = t.services.recordings.start(meetingId, 'audio');
    const fileName = `${started.id}.webm`;
    fs.mkdirSync(recordingsDir(t.dataDir), { recursive: true });
    write(path.join(recordingsDir(t.dataDir), fileName));
    const size = fs.statSync(path.join(recordingsDir(t.dataDir), fileName)).size;
    return t.services.recordings.markReady(started.id, {
      fileName,
      contentType: 'audio/webm',
      sizeBytes: size,
      durationSeconds: 5,
      audioTrackOwners,
    });
  };
  const jobsOf = (recordingId: string) => t.services.jobs.list().filter((j) => j.payload.includes(recordingId));
  const eventTypes = (meetingId: string) =>
    (t.services.db.prepare('SELECT type, payload FROM events ORDER BY id').all() as { type: string; payload: string }[])
      .filter((e) => e.payload.includes(meetingId))
      .map((e) => e.type);

  it('queues a transcribe job when a recording of a meeting with transcription_auto is ready, and none otherwise', () => {
    const auto = seedMeeting(t, { title: 'Auto', settings: { transcription_auto: true } });
    const manual = seedMeeting(t, { title: 'Manual' });
    const a = record(auto.id, (f) => fs.writeFileSync(f, 'x'));
    const m = record(manual.id, (f) => fs.writeFileSync(f, 'x'));
    expect(jobsOf(a.id)).toMatchObject([{ kind: 'transcribe', status: 'pending', payload: JSON.stringify({ recording_id: a.id }) }]);
    expect(jobsOf(m.id)).toEqual([]);
  });

  it('queues a transcription on request (POST /meetings/{id}/transcript) of the newest ready recording; 409 without one', async () => {
    const key = t.key(['meetings:write']);
    const meeting = seedMeeting(t, { title: 'On request' });
    const post = () => t.request('POST', `/api/v1/public/meetings/${meeting.id}/transcript`, { key });
    expect(await post()).toMatchObject({ status: 409, body: { code: 'conflict' } });
    record(meeting.id, (f) => fs.writeFileSync(f, 'old'));
    const newest = record(meeting.id, (f) => fs.writeFileSync(f, 'new'));
    const res = await post();
    expect(res).toMatchObject({ status: 202, body: { kind: 'transcribe', status: 'pending', attempt_count: 0, last_error: null } });
    expect(t.services.jobs.find(res.body.id)!.payload).toBe(JSON.stringify({ recording_id: newest.id }));
    const readOnly = await t.request('POST', `/api/v1/public/meetings/${meeting.id}/transcript`, { key: t.key(['transcripts:read']) });
    expect(readOnly.status).toBe(403);
  });

  it('transcribes a real webm recording from 16 kHz mono wav, stores the transcript, then summarizes it, each event once', async () => {
    const w = worker();
    await drain(w);
    const meeting = seedMeeting(t, { title: 'Release', settings: { transcription_auto: true } });
    seedParticipant(t, meeting.id, { name: 'Alice Smith' });
    const recording = record(meeting.id, (f) => speechRecording(['Hello.'], f));
    engine.tracks = [];
    engine.answer = () => SCRIPT.map((text, i) => ({ start: i * 3, end: i * 3 + 2.5, speaker: null, participant_id: null, text }));
    expect(await w.runOnce()).toBe(1);
    const header = engine.tracks[0]!.header;
    expect([header.toString('ascii', 0, 4), header.readUInt16LE(22), header.readUInt32LE(24), header.readUInt16LE(34)]).toEqual([
      'RIFF',
      1,
      16_000,
      16,
    ]);
    expect(engine.tracks[0]!.speaker).toBeNull();
    expect(t.services.transcripts.stored(meeting.id)!.segments.map((s) => s.text)).toEqual(SCRIPT);
    expect(jobsOf(recording.id)[0]).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect(await w.runOnce()).toBe(1);
    const summary = t.services.summaries.find(t.services.identity.authenticate(t.key())!, meeting.id);
    expect(summary).toMatchObject({
      generator: 'extractive',
      decisions: [{ text: 'We decided to ship the release on friday.', cite: [0] }],
      action_items: [{ owner: 'Alice Smith', cite: [1] }],
    });
    expect(await w.runOnce()).toBe(0);
    expect(eventTypes(meeting.id)).toEqual(['recording.ready', 'transcript.ready', 'summary.ready']);
  });

  it("names each segment after its track's owner (participant_id and name then), leaves an unowned track's segments null, and the summary and transcript.ready say who spoke", async () => {
    const w = worker();
    await drain(w);
    const meeting = seedMeeting(t, { title: 'Two voices', settings: { transcription_auto: true } });
    const alice = seedParticipant(t, meeting.id, { name: 'Alice Smith' });
    const bob = seedParticipant(t, meeting.id, { name: 'Bob Jones' });
    const recording = record(
      meeting.id,
      (f) => {
        const parts = ['a', 'b', 'c'].map((n) => `${f}.${n}.webm`);
        parts.forEach((part, i) => speechRecording([['Hello.', 'Good morning.', 'Hi there.'][i]!], part));
        execFileSync('ffmpeg', [
          ...['-nostdin', '-v', 'error', '-y', '-i', parts[0]!, '-i', parts[1]!, '-i', parts[2]!],
          ...['-map', '0:a', '-map', '1:a', '-map', '2:a', '-c', 'copy', '-f', 'webm', f],
        ]);
        for (const part of parts) fs.rmSync(part);
      },
      [{ participant_id: alice.id, name: 'Alice' }, { participant_id: bob.id, name: 'Bob Jones' }, null],
    );
    let call = 0;
    engine.answer = () => [{ start: call, end: call + 0.5, speaker: null, participant_id: null, text: SCRIPT[call++ % 2]! }];
    expect(await w.runOnce()).toBe(1);
    expect(jobsOf(recording.id)[0]).toMatchObject({ status: 'succeeded' });
    expect(t.services.transcripts.stored(meeting.id)!.segments).toEqual([
      { start: 0, end: 0.5, speaker: 'Alice', participant_id: alice.id, text: SCRIPT[0] },
      { start: 1, end: 1.5, speaker: 'Bob Jones', participant_id: bob.id, text: SCRIPT[1] },
      { start: 2, end: 2.5, speaker: null, participant_id: null, text: SCRIPT[0] },
    ]);
    const ready = t.services.db.prepare("SELECT payload FROM events WHERE type = 'transcript.ready' ORDER BY id DESC LIMIT 1").get() as {
      payload: string;
    };
    expect(JSON.parse(ready.payload).data.transcript).toEqual({
      breakout_room_id: null,
      language: 'en',
      segment_count: 3,
      speakers: [
        { name: 'Alice', participant_id: alice.id },
        { name: 'Bob Jones', participant_id: bob.id },
      ],
    });
    expect(await w.runOnce()).toBe(1);
    const summary = t.services.summaries.find(t.services.identity.authenticate(t.key())!, meeting.id);
    expect(summary.decisions).toEqual([
      { text: 'We decided to ship the release on friday.', cite: [0], speakers: ['Alice'], start_seconds: 0 },
    ]);
    expect(summary.action_items).toMatchObject([{ owner: 'Alice Smith', cite: [1], speakers: ['Bob Jones'] }]);
  });

  it('retries an engine failure with back-off, then succeeds', async () => {
    const w = worker();
    await drain(w);
    const meeting = seedMeeting(t, { title: 'Flaky', settings: { transcription_auto: true } });
    const recording = record(meeting.id, (f) => speechRecording(['Hello.'], f));
    let calls = 0;
    engine.answer = () => {
      calls += 1;
      if (calls === 1) throw new Error('engine crashed');
      return [{ start: 0, end: 1, speaker: null, participant_id: null, text: 'hello' }];
    };
    expect(await w.runOnce()).toBe(1);
    expect(jobsOf(recording.id)[0]).toMatchObject({
      status: 'pending',
      last_error: 'engine crashed',
      next_run_at: t.clock.now() + JOB_RETRY_DELAYS_MS[0],
    });
    expect(await w.runOnce()).toBe(0);
    t.clock.advance(JOB_RETRY_DELAYS_MS[0]);
    expect(await w.runOnce()).toBe(1);
    expect(jobsOf(recording.id)[0]).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    expect(t.services.transcripts.stored(meeting.id)!.text).toBe('hello');
  });

  it.each([
    [
      'a corrupt file',
      (f: string) => fs.writeFileSync(f, Buffer.from('\x1aE\xdf\xa3 not really webm at all')),
      /^the recording cannot be decoded/,
    ],
    ['a silent recording', (f: string) => silentRecording(3, f), /^the recording is silent: no track has any sound$/],
    [
      'a recording whose speech nobody recognizes',
      (f: string) => speechRecording(['Hmm.'], f),
      /^no speech was recognized in the recording$/,
    ],
  ])('fails %s at once with a clear reason, which an operator sees and can retry', async (_what, write, reason) => {
    const w = worker();
    await drain(w);
    engine.answer = () => [];
    const meeting = seedMeeting(t, { title: 'Broken', settings: { transcription_auto: true } });
    const recording = record(meeting.id, write);
    expect(await w.runOnce()).toBe(1);
    const [job] = jobsOf(recording.id);
    expect(job).toMatchObject({ status: 'failed', attempt_count: 1, next_run_at: null });
    expect(job!.last_error).toMatch(reason);
    expect(t.services.transcripts.stored(meeting.id)).toBeUndefined();

    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s) };
    expect(runCli(['jobs', 'list', '--status', 'failed'], t.services, io)).toBe(0);
    expect(out.join('')).toContain(`${job!.id}  transcribe  failed  attempts=1`);
    expect(runCli(['jobs', 'retry', job!.id], t.services, io)).toBe(0);
    expect(jobsOf(recording.id)[0]).toMatchObject({ status: 'pending', attempt_count: 0 });
    expect(runCli(['jobs', 'retry', job!.id], t.services, io)).toBe(1);
    expect(out.at(-1)).toContain('only a failed job can be retried');
    expect(await w.runOnce()).toBe(1);
    expect(jobsOf(recording.id)[0]).toMatchObject({ status: 'failed', attempt_count: 1 });
  });
});
