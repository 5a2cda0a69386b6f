import {
  FakeRoomMediaProvider,
  fakeRtpCapabilities,
  newHolderSecret,
  principalIn,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '@svc/service/testing';
import type { CreateMeetingInput } from '../meetings/meetings.schemas';
import type { PeerConnection } from './peer';
import type { PeerInRoom } from './room';
import type { RoomNotification } from './room.protocol';

let t: TestServer;
let media: FakeRoomMediaProvider;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_EMPTY_GRACE_SECONDS: '60' });
  media = new FakeRoomMediaProvider();
  t.services.rooms.useMedia(media);
});
afterAll(() => t.close());

/** A socket as the RoomsService sees one: it records what it is told and whether it was closed. */
function socket(): PeerConnection & { told: RoomNotification[]; closed: boolean } {
  const told: RoomNotification[] = [];
  const state = { told, closed: false };
  return Object.assign(state, {
    notify: (name: RoomNotification) => void told.push(name),
    close: () => void (state.closed = true),
  });
}

function meeting(input: Partial<CreateMeetingInput> = {}) {
  return seedMeeting(t, input);
}

function credentialBody(m: { id: string }, as: 'host' | string): Record<string, unknown> {
  if (as !== 'host') return { name: as };
  const link = t.services.roomLinks.hostLink(principalIn(t, t.org.id), m.id);
  return { name: 'Host', host: new URL(link.url).searchParams.get('host'), holder: newHolderSecret() };
}

/** Connects a peer the way the room socket does: credential -> admission -> connect. */
async function connect(m: { id: string; code: string }, as: 'host' | string) {
  const { credential } = t.services.roomAccess.issueCredential(m.code, credentialBody(m, as), 'ws://test');
  const connection = socket();
  const session = await t.services.rooms.connect(t.services.roomAccess.admissionOf(credential), connection);
  return { session, connection };
}

function join(session: PeerInRoom) {
  return t.services.rooms.join(session, fakeRtpCapabilities());
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('RoomsService on fake media', () => {
  it('creates one room for peers arriving at once, goes live at the first join and records who joined and left', async () => {
    const m = meeting();
    const before = media.created.length;
    const [host, guest] = await Promise.all([connect(m, 'host'), connect(m, 'Gus')]);
    expect(media.created.length).toBe(before + 1);
    expect(host.session.room).toBe(guest.session.room);
    expect(t.services.meetings.findAnywhere(m.id).status).toBe('scheduled');

    expect(join(host.session)).toMatchObject({ status: 'joined', state: { participantCount: 1, peers: [] } });
    expect(t.services.meetings.findAnywhere(m.id).status).toBe('live');
    const joined = join(guest.session);
    expect(joined).toMatchObject({ status: 'joined', state: { participantCount: 2, peers: [{ name: 'Host' }], canSendMedia: true } });
    expect(host.connection.told).toContain('peerJoined');

    t.services.rooms.leave(guest.session, 'left');
    const participants = t.services.participants.list(principalIn(t, t.org.id), m.id, { after: null, limit: 10 }).data;
    expect(participants.find((p) => p.name === 'Gus')?.left_at).not.toBeNull();
    expect(participants.find((p) => p.name === 'Host')?.left_at).toBeNull();
    expect(guest.connection.closed).toBe(true);
    t.services.rooms.leave(host.session, 'left');
  });

  it('closes an emptied room and gives the next peer a new one', async () => {
    const m = meeting();
    const first = await connect(m, 'host');
    join(first.session);
    const room = first.session.room;
    const roomMedia = media.created.at(-1)!;
    t.services.rooms.leave(first.session, 'left');
    expect(room.closed).toBe(true);
    expect(roomMedia.closed).toBe(true);
    expect(t.services.rooms.liveRooms()).not.toContain(room);
    const again = await connect(m, 'host');
    expect(again.session.room).not.toBe(room);
    t.services.rooms.leave(again.session, 'left');
  });

  it('holds guests of a meeting with a waiting room until a host admits them; only a joined host admits', async () => {
    const m = meeting({ settings: { waiting_room: true } });
    const host = await connect(m, 'host');
    const guest = await connect(m, 'Gus');
    const other = await connect(m, 'Olga');
    join(host.session);
    expect(join(guest.session)).toEqual({ status: 'waiting' });
    expect(join(other.session)).toEqual({ status: 'waiting' });
    expect(host.connection.told).toContain('waiting');
    expect(() => t.services.rooms.admit(other.session, guest.session.peer.id)).toThrow(
      expect.objectContaining({ code: 'insufficient_scope' }),
    );
    t.services.rooms.admit(host.session, guest.session.peer.id);
    expect(guest.connection.told).toContain('admitted');
    expect(join(guest.session)).toMatchObject({ status: 'joined' });
    t.services.rooms.deny(host.session, other.session.peer.id);
    expect(other.connection.closed).toBe(true);
    expect(other.session.peer.state).toBe('left');
    t.services.rooms.leave(guest.session, 'left');
    t.services.rooms.leave(host.session, 'left');
  });

  it('replaces the older connection of the same person', async () => {
    const m = meeting();
    const host = await connect(m, 'host');
    const guest = await connect(m, 'Gus');
    join(host.session);
    join(guest.session);
    const second = socket();
    const replacement = await t.services.rooms.connect(host.session.peer.admission, second);
    expect(host.session.peer.state).toBe('left');
    expect(host.connection.closed).toBe(true);
    expect(replacement.room).toBe(host.session.room);
    expect(join(replacement)).toMatchObject({ status: 'joined', state: { participantCount: 2 } });
    t.services.rooms.leave(replacement, 'left');
    t.services.rooms.leave(guest.session, 'left');
  });

  it('gives a person who reconnects while alone in the room a room that still works', async () => {
    const m = meeting();
    const host = await connect(m, 'host');
    join(host.session);
    const replacement = await t.services.rooms.connect(host.session.peer.admission, socket());
    expect(host.session.peer.state).toBe('left');
    expect(replacement.room.closed).toBe(false);
    expect(join(replacement)).toMatchObject({ status: 'joined', state: { participantCount: 1 } });
    await expect(replacement.room.media.createTransport(replacement.peer.id, 'send')).resolves.toMatchObject({ id: expect.any(String) });
    t.services.rooms.leave(replacement, 'left');
  });

  it('removes everyone with meeting-ended when the meeting ends, and closes the room', async () => {
    const m = meeting();
    const host = await connect(m, 'host');
    const guest = await connect(m, 'Gus');
    join(host.session);
    join(guest.session);
    t.services.rooms.endMeeting(host.session);
    expect(t.services.meetings.findAnywhere(m.id).status).toBe('ended');
    expect(guest.connection.told).toContain('left');
    expect(guest.connection.closed).toBe(true);
    expect(host.session.room.closed).toBe(true);
    await expect(connect(m, 'Gus')).rejects.toMatchObject({ code: 'meeting_unavailable' });
  });

  it('records with a host, tells everyone, and keeps guests from starting or stopping it', async () => {
    const m = meeting();
    const host = await connect(m, 'host');
    const guest = await connect(m, 'Gus');
    join(host.session);
    join(guest.session);
    expect(() => t.services.rooms.startRecording(guest.session)).toThrow(expect.objectContaining({ code: 'insufficient_scope' }));
    const { recordingId } = t.services.rooms.startRecording(host.session);
    expect(host.session.room.recording).toBe(true);
    expect(guest.connection.told).toContain('recording');
    const recordingMedia = media.created.at(-1)!.recordings[0]!;
    expect(recordingMedia.filePath).toContain(recordingId);
    await expect(t.services.rooms.stopRecording(guest.session)).rejects.toMatchObject({ code: 'insufficient_scope' });
    // Nothing was sent: the recording fails with the reason, and the room is no longer recorded.
    await expect(t.services.rooms.stopRecording(host.session)).rejects.toMatchObject({ code: 'conflict' });
    expect(host.session.room.recording).toBe(false);
    expect(t.services.recordings.list(principalIn(t, t.org.id), m.id, { after: null, limit: 10 }).data[0]).toMatchObject({
      id: recordingId,
      status: 'failed',
    });
    t.services.rooms.leave(guest.session, 'left');
    t.services.rooms.leave(host.session, 'left');
  });

  it('moves the rooms of a dead worker to new media once a worker runs again, and tells their peers', async () => {
    const m = meeting();
    const host = await connect(m, 'host');
    join(host.session);
    const lost = media.created.at(-1)!;
    media.available = false;
    media.loseWorker(lost);
    const created = media.created.length;
    // The replacement worker is not up yet: the room keeps trying.
    await new Promise((resolve) => setImmediate(resolve));
    expect(media.created.length).toBe(created);
    media.available = true;
    await waitFor(() => host.session.room.media !== lost);
    expect(host.session.room.media).toBe(media.created.at(-1));
    expect(host.connection.told).toContain('mediaReset');
    expect(host.session.peer.state).toBe('joined');
    t.services.rooms.leave(host.session, 'left');
  });
});

describe('RoomsService without media', () => {
  it('refuses peers without media workers and, once stopping, refuses new connections and disconnects everyone', async () => {
    const bare = await startTestServer();
    try {
      const m = seedMeeting(bare);
      const { credential } = bare.services.roomAccess.issueCredential(m.code, { name: 'Gus' }, 'ws://test');
      const admission = bare.services.roomAccess.admissionOf(credential);
      await expect(bare.services.rooms.connect(admission, socket())).rejects.toMatchObject({ code: 'conflict' });

      const provider = new FakeRoomMediaProvider();
      bare.services.rooms.useMedia(provider);
      const connection = socket();
      const session = await bare.services.rooms.connect(admission, connection);
      bare.services.rooms.join(session, fakeRtpCapabilities());
      bare.services.rooms.close();
      expect(connection.closed).toBe(true);
      expect(session.room.closed).toBe(true);
      expect(provider.created[0]!.closed).toBe(true);
      await expect(bare.services.rooms.connect(admission, socket())).rejects.toMatchObject({ code: 'conflict' });
    } finally {
      await bare.close();
    }
  });
});
