import {
  FakeRoomMedia,
  FakeRoomMediaProvider,
  principalIn,
  roomPeer,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '@svc/service/testing';
import type { Recording } from '../recordings/recordings.service';
import { createLogger } from '../shared/logger';
import type { Room } from './room';
import type { RoomState } from './room.protocol';
import { BreakoutsWorker } from './breakouts.worker';

let t: TestServer;
let media: FakeRoomMediaProvider;

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
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done()).toBe(true);
}

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
  it('records each open breakout room on its own (linked to the meeting and the room), stops them with the main recording, and transcribes only the main room', async () => {
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
    await until(() => recordingsOf(m.id).filter((r) => r.kind === 'tracks' && r.status === 'ready').length === 3);
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
    // One transcript per meeting: only the main room's tracks recording is transcribed.
    const ids = recordingsOf(m.id).map((r) => r.id);
    const transcribe = t.services.jobs.list().filter((j) => j.kind === 'transcribe' && ids.some((id) => j.payload.includes(id)));
    expect(transcribe.map((j) => j.payload)).toEqual([JSON.stringify({ recording_id: mainId })]);
  });

  it("finishes a breakout room's recording when the rooms close, while the main room goes on recording", async () => {
    const { m, host, ann, design } = await meetingWithBreakouts();
    recorderOf(ann.session.room, { participant_id: ann.session.peer.participantId!, name: 'Ann' });
    await host.call('closeBreakouts', {});
    t.clock.advance(30_000);
    expect(await new BreakoutsWorker(t.services.rooms, createLogger('silent')).runOnce()).toBe(1);
    await until(() => recordingsOf(m.id).some((r) => r.breakout_room_id === design && r.kind === 'tracks' && r.status === 'ready'));
    expect(ann.session.room.breakout).toBeNull();
    expect(host.session.room.recording).toBe(true);
    expect(recordingsOf(m.id).find((r) => r.kind === 'tracks' && r.breakout_room_id === null)).toMatchObject({ status: 'processing' });
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
