import { principalIn, seedMeeting, startTestServer, type TestServer } from '@svc/service/testing';
import { MeetingProcessingService } from '../dashboard/meeting-processing';
import { isoAt } from '../shared/clock';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const segments = [{ start: 0, end: 2, speaker: 'Ann', participant_id: null, text: 'Hello.' }];

/** A meeting with one breakout room, a recording made in it and one in the main room, each room's transcript stored. */
function transcribedMeeting() {
  const m = seedMeeting(t);
  const roomId = t.services.breakouts.create(m.id, { host: true }, ['Design']).rooms[0]!.id;
  const inRoom = t.services.recordings.start(m.id, 'tracks', null, roomId);
  const inMain = t.services.recordings.start(m.id, 'tracks');
  t.services.transcripts.complete(m.id, { language: 'en', segments }, roomId);
  t.services.transcripts.complete(m.id, { language: 'en', segments });
  t.clock.advance(60_000);
  return { m, roomId, inRoom, inMain };
}

/** A transcribe job of `recordingId`, stored as having ended in `status` now. */
function transcribeJob(recordingId: string, status: 'pending' | 'failed') {
  const now = t.clock.now();
  t.services.jobsRepo.insert({
    id: t.services.ids.next('job'),
    kind: 'transcribe',
    payload: JSON.stringify({ recording_id: recordingId }),
    status,
    attempt_count: 1,
    next_run_at: status === 'pending' ? now : null,
    lease_until: null,
    last_error: 'the recording cannot be decoded',
    created_at: isoAt(now),
    completed_at: status === 'failed' ? isoAt(now) : null,
  });
}

const principal = () => principalIn(t, t.org.id);
const roomTranscript = (meetingId: string, roomId: string) =>
  t.services.breakouts.list(principal(), meetingId).data.find((r) => r.id === roomId)!.transcript?.status;
const meetingTranscript = (meetingId: string) => {
  const { meetings, jobsRepo, jobs, transcripts, summaries } = t.services;
  return new MeetingProcessingService(meetings, jobsRepo, jobs, transcripts, summaries).get(principal(), meetingId).transcript.status;
};

describe("a breakout room's transcript state follows the meeting's rule", () => {
  it('a failed re-run newer than the stored transcript is failed, for the breakout room as for the meeting', () => {
    const { m, roomId, inRoom, inMain } = transcribedMeeting();
    expect([roomTranscript(m.id, roomId), meetingTranscript(m.id)]).toEqual(['ready', 'ready']);
    transcribeJob(inRoom.id, 'failed');
    transcribeJob(inMain.id, 'failed');
    expect([roomTranscript(m.id, roomId), meetingTranscript(m.id)]).toEqual(['failed', 'failed']);
  });

  it('a failure older than the stored transcript leaves it ready; a re-run under way is processing', () => {
    const m = seedMeeting(t);
    const roomId = t.services.breakouts.create(m.id, { host: true }, ['Design']).rooms[0]!.id;
    const rec = t.services.recordings.start(m.id, 'tracks', null, roomId);
    transcribeJob(rec.id, 'failed');
    expect(roomTranscript(m.id, roomId)).toBe('failed');
    t.clock.advance(1_000);
    t.services.transcripts.complete(m.id, { language: 'en', segments }, roomId);
    expect(roomTranscript(m.id, roomId)).toBe('ready');
    t.clock.advance(1_000);
    transcribeJob(rec.id, 'pending');
    expect(roomTranscript(m.id, roomId)).toBe('processing');
  });
});
