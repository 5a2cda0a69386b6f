import fs from 'node:fs';
import path from 'node:path';
import { RenderCompositeJob } from '../recordings/composite/composite.job';
import { createJobWorker, recordingsDir } from '../services';
import { createLogger } from '../shared/logger';
import { SummarizeJob } from '../summaries/summarize.job';
import { Summarizer } from '../summaries/summarizer';
import { syntheticTracksFile } from '../testing/composite-meeting';
import { seedMeeting } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';
import type { SpeechToText, SpeechTrack } from './speech-to-text';
import { TranscribeJob } from './transcribe.job';
import type { TranscriptSegment } from './transcripts.repo';

/** A stand-in engine: hears one sentence per track, named after the track's speaker by the job. */
class OneSentenceEngine implements SpeechToText {
  readonly name = 'one-sentence';
  async transcribe(_track: SpeechTrack): Promise<TranscriptSegment[]> {
    return [{ start: 0, end: 1, speaker: null, participant_id: null, text: 'we ship on friday' }];
  }
}

describe('automatic transcription starts from the tracks recording, whatever becomes of its composite', () => {
  let t: TestServer;
  let tracksFile: Awaited<ReturnType<typeof syntheticTracksFile>>;
  const logger = createLogger('silent');
  beforeAll(async () => {
    t = await startTestServer();
    const dir = path.join(t.dataDir, 'synthetic');
    fs.mkdirSync(dir, { recursive: true });
    tracksFile = await syntheticTracksFile(
      {
        participants: [{ name: 'Ada Lovelace', participantId: 'prt_ada', voice: 'rms', camera: 'testsrc2' }],
        sentences: ['We decided to launch on Friday.'],
        durationSeconds: 4,
      },
      dir,
    );
  }, 120_000);
  afterAll(() => t.close());

  const worker = (preset?: string) => {
    const { recordings, transcripts, jobs, transaction, meetings, participants, summaries } = t.services;
    return createJobWorker(
      t.services,
      [
        new RenderCompositeJob({ recordings, logger, render: preset ? { preset } : undefined }),
        new TranscribeJob({ recordings, transcripts, jobs, transaction, engine: new OneSentenceEngine(), logger }),
        new SummarizeJob({ meetings, participants, transcripts, summaries, summarizer: new Summarizer(undefined, logger), logger }),
      ],
      logger,
    );
  };
  /** Runs every queued job (bounded), counting them. */
  const drain = async (w: { runOnce(): Promise<number> }) => {
    let ran = 0;
    for (let i = 0; i < 20 && (await w.runOnce()) > 0; i++) ran += 1;
    return ran;
  };
  /** A meeting recorded in the room: its tracks recording finished like RoomRecordings does. */
  const recordTracks = (meetingId: string) => {
    const started = t.services.recordings.start(meetingId, 'tracks');
    const fileName = `${started.id}.mkv`;
    fs.mkdirSync(recordingsDir(t.dataDir), { recursive: true });
    fs.copyFileSync(tracksFile.file, path.join(recordingsDir(t.dataDir), fileName));
    return t.services.recordings.finishTracks(started.id, {
      fileName,
      contentType: 'video/x-matroska',
      sizeBytes: fs.statSync(tracksFile.file).size,
      durationSeconds: 4,
      audioTrackOwners: [{ participant_id: 'prt_ada', name: 'Ada Lovelace' }],
      tracks: tracksFile.tracks,
    });
  };
  const transcribeJobs = (meetingId: string) => {
    const ids = t.services.recordings
      .list(t.services.identity.authenticate(t.key())!, meetingId, { after: null, limit: 10 })
      .data.map((r) => r.id);
    return t.services.jobs.list().filter((j) => j.kind === 'transcribe' && ids.some((id) => j.payload.includes(id)));
  };
  const eventTypes = (meetingId: string) =>
    (t.services.db.prepare('SELECT type, payload FROM events ORDER BY id').all() as { type: string; payload: string }[])
      .filter((e) => e.payload.includes(meetingId))
      .map((e) => e.type);

  it('a composite that fails to render still leads to a transcript (queued when the tracks recording is ready)', async () => {
    await drain(worker());
    const meeting = seedMeeting(t, { title: 'Render fails', settings: { transcription_auto: true } });
    const { tracks, composite } = recordTracks(meeting.id);
    expect(transcribeJobs(meeting.id)).toMatchObject([{ status: 'pending', payload: JSON.stringify({ recording_id: tracks.id }) }]);
    expect(await drain(worker('no-such-x264-preset'))).toBe(3); // render (fails), transcribe, summarize
    const [failed] = t.services.recordings
      .list(t.services.identity.authenticate(t.key())!, meeting.id, { after: null, limit: 10 })
      .data.filter((r) => r.id === composite.id);
    expect(failed).toMatchObject({ kind: 'video', status: 'failed' });
    expect(transcribeJobs(meeting.id)).toMatchObject([{ status: 'succeeded' }]);
    expect(t.services.transcripts.stored(meeting.id)).toMatchObject({ text: 'we ship on friday' });
    expect(t.services.transcripts.stored(meeting.id)!.segments[0]).toMatchObject({ speaker: 'Ada Lovelace', participant_id: 'prt_ada' });
    expect(eventTypes(meeting.id)).toEqual(['transcript.ready', 'summary.ready']);
  }, 120_000);

  it('a composite that renders leads to exactly one transcribe job (recording.ready of the composite queues none)', async () => {
    await drain(worker());
    const meeting = seedMeeting(t, { title: 'Render works', settings: { transcription_auto: true } });
    const { composite } = recordTracks(meeting.id);
    expect(await drain(worker())).toBe(3); // render, transcribe, summarize
    expect(eventTypes(meeting.id)).toEqual(['recording.ready', 'transcript.ready', 'summary.ready']);
    const listed = t.services.recordings.list(t.services.identity.authenticate(t.key())!, meeting.id, { after: null, limit: 10 }).data;
    expect(listed.find((r) => r.id === composite.id)).toMatchObject({ kind: 'video', status: 'ready' });
    expect(transcribeJobs(meeting.id)).toMatchObject([{ status: 'succeeded' }]);
  }, 180_000);

  it('queues nothing for a meeting without transcription_auto', async () => {
    await drain(worker());
    const meeting = seedMeeting(t, { title: 'Manual' });
    recordTracks(meeting.id);
    expect(transcribeJobs(meeting.id)).toEqual([]);
  });
});
