import fs from 'node:fs';
import path from 'node:path';
import {
  FakeRoomMedia,
  FakeRoomMediaProvider,
  principalIn,
  roomPeer,
  seedMeeting,
  startTestServer,
  syntheticTracksFile,
  type TestServer,
  waitUntil,
} from '@svc/service/testing';
import type { BreakoutRoom } from '../breakouts/breakouts.protocol';
import type { Scope } from '../keys/scopes';
import type { Recording } from '../recordings/recordings.service';
import { createJobWorker } from '../services';
import { createLogger } from '../shared/logger';
import { SummarizeJob } from '../summaries/summarize.job';
import { Summarizer } from '../summaries/summarizer';
import { PocketsphinxSpeechToText } from '../transcripts/pocketsphinx';
import { TranscribeJob } from '../transcripts/transcribe.job';
import type { Transcript } from '../transcripts/transcripts.repo';
import type { Room } from './room';
import type { RoomState } from './room.protocol';
import { BreakoutsWorker } from './breakouts.worker';

/** What the host says in the main room, and the words pocketsphinx must hear of it. */
const MAIN = {
  text: 'We decided to launch the billing service on Friday.',
  words: ['decided', 'launch', 'billing', 'service', 'friday'],
};
/** What Ann says in her breakout room. */
const BREAKOUT = {
  text: 'Customers asked for a faster search page and better reports.',
  words: ['customers', 'asked', 'faster', 'search', 'page', 'reports'],
};

let t: TestServer;
let media: FakeRoomMediaProvider;
const logger = createLogger('silent');

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_EMPTY_GRACE_SECONDS: '60' });
  media = new FakeRoomMediaProvider();
  t.services.rooms.useMedia(media);
});
afterAll(() => t.close());

/** The fake recorder of a room: it "sees" one microphone, so stopping it gives a file. */
function recorderOf(room: Room, owner: { participant_id: string; name: string }) {
  const recorder = (room.media as FakeRoomMedia).recordings.at(-1)!;
  recorder.add({ kind: 'audio', owner });
  return recorder;
}
const recordingsOf = (meetingId: string): Recording[] =>
  t.services.recordings.list(principalIn(t, t.org.id), meetingId, { after: null, limit: 20 }).data;
/** Waits (bounded) until `done` holds. */
/**
 * A meeting (with transcription_auto unless `auto` is false: its room records by itself), its host in the main room,
 * Ann in breakout room Design and Bob assigned to Budget.
 */
async function meetingWithBreakouts(auto = true) {
  const m = seedMeeting(t, { settings: { transcription_auto: auto } });
  const host = await roomPeer(t, m, 'Hana', { host: true });
  const ann = await roomPeer(t, m, 'Ann');
  const bob = await roomPeer(t, m, 'Bob');
  const { breakouts } = await host.call('createBreakouts', { names: ['Design', 'Budget'] });
  const [design, budget] = breakouts.rooms.map((r) => r.id) as [string, string];
  await host.call('assignBreakouts', {
    assignments: [
      { identity: ann.identity, room: design },
      { identity: bob.identity, room: budget },
    ],
  });
  await host.call('openBreakouts', {});
  const annMoved = await ann.call('moveToBreakout', { room: design });
  return { m, host, ann, bob, design, budget, annMoved };
}

describe('breakout rooms of a recorded meeting on fake media', () => {
  it('records each open breakout room on its own (linked to the meeting and the room), stops them with the main recording, and queues the transcription of each room', async () => {
    const { m, host, ann, bob, design, budget, annMoved } = await meetingWithBreakouts();
    // The meeting records by itself (transcription_auto): the host is told so.
    expect(host.session.room.recording).toBe(true);
    const mainId = recordingsOf(m.id).find((r) => r.breakout_room_id === null)!.id;
    // Design was open already; Budget opens when Bob moves in: both are recorded on their own media.
    expect(ann.session.room.recording).toBe(true);
    expect((annMoved.state as RoomState).recording).toBe(true);
    const bobMoved = await bob.call('moveToBreakout', { room: budget });
    expect(bob.session.room.recording).toBe(true);
    expect((bobMoved.state as RoomState).recording).toBe(true);
    const processing = recordingsOf(m.id);
    expect(processing.map((r) => [r.kind, r.status, r.breakout_room_id]).sort()).toEqual(
      [
        ['tracks', 'processing', null],
        ['tracks', 'processing', design],
        ['tracks', 'processing', budget],
      ].sort(),
    );
    expect((ann.session.room.media as FakeRoomMedia).recordings).toHaveLength(1);
    expect((bob.session.room.media as FakeRoomMedia).recordings).toHaveLength(1);
    expect((ann.session.room.media as FakeRoomMedia).recordings[0]!.filePath).not.toBe(
      (bob.session.room.media as FakeRoomMedia).recordings[0]!.filePath,
    );

    recorderOf(host.session.room, { participant_id: host.session.peer.participantId!, name: 'Hana' });
    recorderOf(ann.session.room, { participant_id: ann.session.peer.participantId!, name: 'Ann' });
    recorderOf(bob.session.room, { participant_id: bob.session.peer.participantId!, name: 'Bob' });
    await host.call('stopRecording', {});
    await waitUntil(
      () => recordingsOf(m.id).filter((r) => r.kind === 'tracks' && r.status === 'ready').length === 3,
      'the tracks recordings ready',
      5_000,
    );
    expect(ann.session.room.recording).toBe(false);

    // The API shows which breakout room each recording (tracks and its composite) was made in.
    const res = await t.request('GET', `/api/v1/public/meetings/${m.id}/recordings`, { key: t.key(['recordings:read']) });
    expect(res.status).toBe(200);
    const shown = (res.body.data as Recording[]).map((r) => [r.kind, r.breakout_room_id]).sort();
    expect(shown).toEqual(
      [
        ['tracks', null],
        ['video', null],
        ['tracks', design],
        ['video', design],
        ['tracks', budget],
        ['video', budget],
      ].sort(),
    );
    const annTracks = (res.body.data as Recording[]).find((r) => r.kind === 'tracks' && r.breakout_room_id === design)!;
    expect(annTracks.tracks).toMatchObject([{ kind: 'audio', name: 'Ann' }]);
    // Each room's tracks recording is transcribed on its own (the meeting transcribes automatically).
    const tracksIds = recordingsOf(m.id)
      .filter((r) => r.kind === 'tracks')
      .map((r) => r.id);
    const transcribe = t.services.jobs.list().filter((j) => j.kind === 'transcribe' && tracksIds.some((id) => j.payload.includes(id)));
    expect(transcribe.map((j) => JSON.parse(j.payload).recording_id).sort()).toEqual(tracksIds.sort());
    expect(tracksIds).toContain(mainId);
  });

  it("finishes a breakout room's recording when the rooms close, while the main room goes on recording", async () => {
    const { m, host, ann, design } = await meetingWithBreakouts();
    recorderOf(ann.session.room, { participant_id: ann.session.peer.participantId!, name: 'Ann' });
    await host.call('closeBreakouts', {});
    t.clock.advance(30_000);
    expect(await new BreakoutsWorker(t.services.rooms, logger).runOnce()).toBe(1);
    await waitUntil(
      () => recordingsOf(m.id).some((r) => r.breakout_room_id === design && r.kind === 'tracks' && r.status === 'ready'),
      'the tracks recordings ready',
      5_000,
    );
    expect(ann.session.room.breakout).toBeNull();
    expect(host.session.room.recording).toBe(true);
    expect(recordingsOf(m.id).find((r) => r.kind === 'tracks' && r.breakout_room_id === null)).toMatchObject({ status: 'processing' });
    // The breakout room's transcription is queued; the dashboard's transcript status (the meeting's) does not follow it.
    const designTracks = recordingsOf(m.id).find((r) => r.kind === 'tracks' && r.breakout_room_id === design)!;
    expect(t.services.jobs.list().some((j) => j.kind === 'transcribe' && j.payload.includes(designTracks.id))).toBe(true);
    expect(t.services.jobsRepo.latestTranscribeOf(m.id)).toBeUndefined();
  });

  it('a breakout room is recorded only while its meeting is: a recording started later takes in the open breakout rooms', async () => {
    const { m, host, ann, design } = await meetingWithBreakouts(false);
    expect(ann.session.room.recording).toBe(false);
    expect((ann.session.room.media as FakeRoomMedia).recordings).toHaveLength(0);
    await host.call('startRecording', {});
    expect(ann.session.room.recording).toBe(true);
    expect(
      recordingsOf(m.id)
        .map((r) => r.breakout_room_id)
        .sort(),
    ).toEqual([design, null].sort());
  });

  it('a host visiting a breakout room records and stops that room on its own', async () => {
    const { m, host, ann, design } = await meetingWithBreakouts(false);
    await host.call('moveToBreakout', { room: design });
    await host.call('startRecording', {});
    expect(ann.session.room.recording).toBe(true);
    expect(recordingsOf(m.id).map((r) => r.breakout_room_id)).toEqual([design]);
    recorderOf(ann.session.room, { participant_id: ann.session.peer.participantId!, name: 'Ann' });
    await expect(host.call('stopRecording', {})).resolves.toMatchObject({ status: 'ready' });
    expect(ann.session.room.recording).toBe(false);
  });
});

const api = (p: string, scopes: readonly Scope[]) => t.request('GET', `/api/v1/public${p}`, { key: t.key(scopes) });
/** Runs every due job (bounded): transcribe and summarize with the real engine; render_composite has no handler here. */
async function drain(): Promise<void> {
  const { recordings, transcripts, jobs, transaction, meetings, participants, summaries } = t.services;
  const worker = createJobWorker(
    t.services,
    [
      new TranscribeJob({ recordings, transcripts, jobs, transaction, engine: new PocketsphinxSpeechToText(), logger }),
      new SummarizeJob({ meetings, participants, transcripts, summaries, summarizer: new Summarizer(undefined, logger), logger }),
    ],
    logger,
  );
  for (let i = 0; i < 30 && (await worker.runOnce()) > 0; i++);
}
/** The words of `words` found in `text`. */
const heard = (text: string, words: string[]) => words.filter((w) => new RegExp(`\\b${w}\\b`).test(text.toLowerCase()));

/** The room's fake recorder "hears" one microphone: its file is a real per-track file where that person says `text`. */
async function speakInto(room: Room, who: { participant_id: string; name: string }, text: string): Promise<void> {
  const recorder = recorderOf(room, who);
  const dir = fs.mkdtempSync(path.join(t.dataDir, 'speech-'));
  const { file } = await syntheticTracksFile(
    { participants: [{ name: who.name, participantId: who.participant_id, voice: 'rms' }], sentences: [text], durationSeconds: 6 },
    dir,
  );
  fs.mkdirSync(path.dirname(recorder.filePath), { recursive: true });
  fs.copyFileSync(file, recorder.filePath);
}

describe('breakout rooms of a recorded and transcribed meeting are transcribed on their own', () => {
  it("yields the main room's transcript and the breakout room's own (real pocketsphinx), speakers by name, linked to the meeting", async () => {
    const { m, host, ann, design, budget } = await meetingWithBreakouts();
    const hana = { participant_id: host.session.peer.participantId!, name: 'Hana' };
    const annOwner = { participant_id: ann.session.peer.participantId!, name: 'Ann' };
    await speakInto(host.session.room, hana, MAIN.text);
    await speakInto(ann.session.room, annOwner, BREAKOUT.text);
    await host.call('stopRecording', {});
    await waitUntil(
      () => recordingsOf(m.id).filter((r) => r.kind === 'tracks' && r.status === 'ready').length === 2,
      'the tracks recordings ready',
      5_000,
    );

    // Before the jobs run, the breakout room's transcript is being made.
    const before = (await api(`/meetings/${m.id}/breakout-rooms`, ['meetings:read'])).body.data as BreakoutRoom[];
    expect(before.find((r) => r.id === design)!.transcript).toMatchObject({ status: 'processing' });
    // Budget never opened (nobody moved in): nothing recorded there, no transcript.
    expect(before.find((r) => r.id === budget)).toMatchObject({ recording_ids: [], transcript: null });

    await drain();
    const main = t.services.transcripts.stored(m.id)!;
    const room = t.services.transcripts.stored(m.id, design)!;
    expect(main).toMatchObject({ breakout_room_id: null, status: 'ready' });
    expect(room).toMatchObject({ meeting_id: m.id, breakout_room_id: design, status: 'ready' });
    // Each room's words in its own transcript, said by the one person recorded there.
    expect(heard(main.text, MAIN.words).length).toBeGreaterThanOrEqual(3);
    expect(heard(room.text, BREAKOUT.words).length).toBeGreaterThanOrEqual(3);
    expect(heard(main.text, ['customers', 'reports'])).toEqual([]);
    expect(heard(room.text, ['billing', 'friday'])).toEqual([]);
    expect(new Set(main.segments.map((s) => `${s.speaker}/${s.participant_id}`))).toEqual(new Set([`Hana/${hana.participant_id}`]));
    expect(new Set(room.segments.map((s) => `${s.speaker}/${s.participant_id}`))).toEqual(new Set([`Ann/${annOwner.participant_id}`]));

    // The meeting's transcript is the main room's, as before; the breakout room's is read at the link its listing gives.
    const meetingTranscript = await api(`/meetings/${m.code}/transcript`, ['transcripts:read']);
    expect(meetingTranscript.body).toEqual(JSON.parse(JSON.stringify({ ...main, breakout_room_id: undefined })));
    expect(Object.keys(meetingTranscript.body)).not.toContain('breakout_room_id');
    const listed = await api(`/meetings/${m.code}/breakout-rooms`, ['meetings:read']);
    const designListed = (listed.body.data as BreakoutRoom[]).find((r) => r.id === design)!;
    const roomRecordings = recordingsOf(m.id).filter((r) => r.breakout_room_id === design);
    expect(designListed.recording_ids.sort()).toEqual(roomRecordings.map((r) => r.id).sort());
    expect(roomRecordings.map((r) => r.kind).sort()).toEqual(['tracks', 'video']);
    expect(designListed.transcript).toEqual({
      status: 'ready',
      url: `${t.config.baseUrl}/api/v1/public/meetings/${m.id}/breakout-rooms/${design}/transcript`,
    });
    const byLink = await t.request('GET', new URL(designListed.transcript!.url).pathname, { key: t.key(['transcripts:read']) });
    expect(byLink.status).toBe(200);
    expect(byLink.body).toEqual(JSON.parse(JSON.stringify(room)));

    // transcript.ready once per room, naming the breakout room (null for the meeting's); one summary, of the main room.
    const events = (t.services.db.prepare('SELECT type, payload FROM events ORDER BY id').all() as { type: string; payload: string }[])
      .filter((e) => e.payload.includes(m.id) && /^(transcript|summary)\./.test(e.type))
      .map((e) => [e.type, (JSON.parse(e.payload).data.transcript as { breakout_room_id: string | null } | undefined)?.breakout_room_id]);
    expect(events.sort()).toEqual(
      [
        ['summary.ready', undefined],
        ['transcript.ready', design],
        ['transcript.ready', null],
      ].sort(),
    );
    const summary = t.services.summaries.find(principalIn(t, t.org.id), m.id);
    expect(JSON.stringify(summary)).not.toMatch(/customers/i);

    // Search covers the meeting's transcript only: the main room's words are found once, the breakout room's not at all.
    const search = (q: string) => api(`/search?q=${encodeURIComponent(q)}&meeting=${m.id}`, ['transcripts:read']);
    const mainWord = heard(main.text, MAIN.words)[0]!;
    const mainHits = (await search(mainWord)).body.data as { source: string; segment_index: number }[];
    expect(mainHits.length).toBeGreaterThan(0);
    expect(new Set(mainHits.map((h) => h.segment_index)).size).toBe(mainHits.length);
    expect((await search(heard(room.text, BREAKOUT.words)[0]!)).body.data).toEqual([]);
  }, 180_000);

  it("lists a breakout room's transcript as failed when its transcribe job fails for good", async () => {
    const { m, host, ann, design } = await meetingWithBreakouts();
    recorderOf(host.session.room, { participant_id: host.session.peer.participantId!, name: 'Hana' });
    // The fake recorder writes no file: the room's recording cannot be decoded.
    recorderOf(ann.session.room, { participant_id: ann.session.peer.participantId!, name: 'Ann' });
    await host.call('stopRecording', {});
    await waitUntil(
      () => recordingsOf(m.id).filter((r) => r.kind === 'tracks' && r.status === 'ready').length === 2,
      'the tracks recordings ready',
      5_000,
    );
    await drain();
    const listed = (await api(`/meetings/${m.id}/breakout-rooms`, ['meetings:read'])).body.data as BreakoutRoom[];
    expect(listed.find((r) => r.id === design)!.transcript).toMatchObject({ status: 'failed' });
    expect((await api(`/meetings/${m.id}/breakout-rooms/${design}/transcript`, ['transcripts:read'])).status).toBe(404);
  });

  it("answers 404 problem+json for unknown meetings and rooms, another meeting's room, and a room without a transcript yet; checks scopes", async () => {
    const { m, design, budget } = await meetingWithBreakouts();
    const other = seedMeeting(t, { title: 'Other' });
    t.services.transcripts.complete(
      m.id,
      { language: 'en', segments: [{ start: 0, end: 1, speaker: 'Ann', text: 'hello design' }] },
      design,
    );
    const read = ['transcripts:read'] as const;
    const ok = await api(`/meetings/${m.id}/breakout-rooms/${design}/transcript`, read);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ meeting_id: m.id, breakout_room_id: design, text: 'hello design' });
    expect((ok.body as Transcript).segments).toEqual([{ start: 0, end: 1, speaker: 'Ann', participant_id: null, text: 'hello design' }]);
    // The breakout transcript is not the meeting's: that one does not exist yet.
    expect((await api(`/meetings/${m.id}/transcript`, read)).status).toBe(404);

    for (const p of [
      `/meetings/${other.id}/breakout-rooms/${design}/transcript`,
      `/meetings/${m.id}/breakout-rooms/brk_nope/transcript`,
      `/meetings/${m.id}/breakout-rooms/${budget}/transcript`,
      `/meetings/mtg_nope/breakout-rooms/${design}/transcript`,
    ]) {
      const res = await api(p, read);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    }
    const denied = await api(`/meetings/${m.id}/breakout-rooms/${design}/transcript`, ['meetings:read']);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'transcripts:read' });
    const otherOrg = await t.request('GET', `/api/v1/public/meetings/${m.id}/breakout-rooms/${design}/transcript`, {
      key: t.key(read, { org: t.services.identity.createOrganization(t.owner.id, 'Elsewhere').id }),
    });
    expect(otherOrg.status).toBe(404);
  });
});
