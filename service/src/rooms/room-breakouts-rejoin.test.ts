import {
  fakeRtpCapabilities,
  FakeRoomMediaProvider,
  principalIn,
  recordingConnection,
  roomPeer,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '@svc/service/testing';
import { createLogger } from '../shared/logger';
import { newHolderSecret } from '../testing/room-client';
import { BreakoutsWorker } from './breakouts.worker';
import type { PeerInRoom } from './room';
import { handleRoomRequest } from './room.handlers';
import type { RoomMethod, RoomMethods, RoomState } from './room.protocol';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_EMPTY_GRACE_SECONDS: '60' });
  t.services.rooms.useMedia(new FakeRoomMediaProvider());
});
afterAll(() => t.close());

type Meeting = { id: string; code: string };

/**
 * A person connecting (again) the way the page does: a guest shows the credential of their dropped connection
 * (`rejoin`, so they stay the same person), a host comes with the same host link; then `join`.
 */
async function connectAgain(m: Meeting, body: Record<string, unknown>) {
  const { credential } = t.services.roomAccess.issueCredential(m.code, body, 'ws://test');
  const connection = recordingConnection();
  const session = await t.services.rooms.connect(t.services.roomAccess.admissionOf(credential), connection);
  const call = <M extends RoomMethod>(method: M, data: RoomMethods[M]['data']) =>
    handleRoomRequest(session, method, data, t.services.rooms) as Promise<RoomMethods[M]['result']>;
  const joined = await call('join', { rtpCapabilities: fakeRtpCapabilities() });
  return { session, connection, call, joined, credential, identity: session.peer.admission.identity };
}

/** What the room socket does when its WebSocket closes without a `leave` (a network blip). */
const dropSocket = (session: PeerInRoom) => t.services.rooms.leave(session, 'left');
const worker = () => new BreakoutsWorker(t.services.rooms, createLogger('silent'));
const namesIn = (session: PeerInRoom) =>
  session.room
    .joined()
    .map((p) => p.name)
    .sort();

/** A meeting with its host (by host link) in the main room, Ann (guest) in breakout room Design and Bob in Budget. */
async function twoRoomsInUse() {
  const m = seedMeeting(t);
  const hostBody = {
    name: 'Hana',
    host: new URL(t.services.roomLinks.hostLink(principalIn(t, t.org.id), m.id).url).searchParams.get('host'),
    holder: newHolderSecret(),
  };
  const host = await connectAgain(m, hostBody);
  const ann = await connectAgain(m, { name: 'Ann' });
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
  await ann.call('moveToBreakout', { room: design });
  await bob.call('moveToBreakout', { room: budget });
  return { m, hostBody, host, ann, bob, design, budget };
}

describe('reconnecting inside a breakout room (fake media)', () => {
  it('a guest whose socket dropped in a breakout room comes back into it (same identity through rejoin), on its router, with the join answer saying so', async () => {
    const { m, host, ann, design } = await twoRoomsInUse();
    const designRouter = ann.session.room.media.routerId;
    dropSocket(ann.session);
    // Ann was alone in Design: its media closed with her.
    expect(t.services.rooms.breakouts.roomsOf(m.id).map((r) => r.breakout!.id)).not.toContain(design);

    const again = await connectAgain(m, { name: 'Ann', rejoin: ann.credential });
    expect(again.identity).toBe(ann.identity);
    expect(again.joined).toMatchObject({ status: 'joined', breakout: { room: { id: design, name: 'Design' } } });
    const answer = again.joined as { state: RoomState; breakout: { rtpCapabilities: unknown; state: RoomState } };
    expect(answer.state).toEqual(answer.breakout.state);
    expect(again.session.room.breakout).toEqual({ id: design, name: 'Design' });
    // Design opened again on media of its own, not the main room's router.
    expect(again.session.room.media.routerId).not.toBe(host.session.room.media.routerId);
    expect(again.session.room.media.routerId).not.toBe(designRouter);
    expect(namesIn(host.session)).toEqual(['Hana']);
    expect(namesIn(again.session)).toEqual(['Ann']);
    // The host sees her in Design, and the page's breakout view says so.
    const seen = (await again.call('listBreakouts', {})).breakouts;
    expect(seen).toMatchObject({ status: 'open', current: design, mine: design });
    const people = (await host.call('listBreakouts', {})).breakouts.people;
    expect(people).toContainEqual({ identity: ann.identity, name: 'Ann', in: design });
    // From there she moves back to the main room as before.
    await again.call('moveToBreakout', { room: null });
    expect(namesIn(host.session)).toEqual(['Ann', 'Hana']);
  });

  it('a host visiting a breakout room comes back into the room visited; someone who moved back to the main room stays there', async () => {
    const { m, hostBody, host, ann, bob, budget } = await twoRoomsInUse();
    await host.call('moveToBreakout', { room: budget });
    expect(namesIn(bob.session)).toEqual(['Bob', 'Hana']);
    await ann.call('moveToBreakout', { room: null });
    dropSocket(host.session);
    dropSocket(ann.session);
    expect(namesIn(bob.session)).toEqual(['Bob']);

    const hostAgain = await connectAgain(m, hostBody);
    expect(hostAgain.joined).toMatchObject({ breakout: { room: { id: budget } } });
    expect(namesIn(bob.session)).toEqual(['Bob', 'Hana']);
    const annAgain = await connectAgain(m, { name: 'Ann', rejoin: ann.credential });
    expect(annAgain.joined).not.toHaveProperty('breakout');
    expect(annAgain.session.room.breakout).toBeNull();
  });

  it('a connection that comes back before the old one is noticed as gone replaces it in the breakout room', async () => {
    const { m, host, ann, design } = await twoRoomsInUse();
    const again = await connectAgain(m, { name: 'Ann', rejoin: ann.credential });
    expect(again.session.room.breakout?.id).toBe(design);
    expect(ann.session.peer.state).toBe('left');
    expect(ann.connection.told.filter((n) => n.name === 'left').map((n) => n.data)).toEqual([{ reason: 'replaced' }]);
    expect(ann.connection.closed).toBe(true);
    expect(namesIn(again.session)).toEqual(['Ann']);
    expect(again.session.room.joined()).toHaveLength(1);
    // Her earlier participant row left; the new one is open.
    const participants = t.services.participants.list(principalIn(t, t.org.id), m.id, { after: null, limit: 50 }).data;
    expect(participants.filter((p) => p.name === 'Ann' && p.left_at === null)).toHaveLength(1);
    // The old socket's close comes later and changes nothing.
    dropSocket(ann.session);
    expect(namesIn(again.session)).toEqual(['Ann']);
    expect(namesIn(host.session)).toEqual(['Hana']);
  });

  it('a connection that comes back while the old one is still in a breakout room replaces it there too when it waits in the waiting room, or stays in the main room', async () => {
    const m = seedMeeting(t, { settings: { waiting_room: true } });
    const host = await connectAgain(m, {
      name: 'Hana',
      host: new URL(t.services.roomLinks.hostLink(principalIn(t, t.org.id), m.id).url).searchParams.get('host'),
      holder: newHolderSecret(),
    });
    const ann = await connectAgain(m, { name: 'Ann' });
    expect(ann.joined).toEqual({ status: 'waiting' });
    await host.call('admit', { peerId: ann.session.peer.id });
    expect((await ann.call('join', { rtpCapabilities: fakeRtpCapabilities() })).status).toBe('joined');
    const { breakouts } = await host.call('createBreakouts', { names: ['Design', 'Budget'] });
    const [design, budget] = breakouts.rooms.map((r) => r.id) as [string, string];
    await host.call('assignBreakouts', { assignments: [{ identity: ann.identity, room: design }] });
    await host.call('openBreakouts', {});
    await ann.call('moveToBreakout', { room: design });

    // Her page connects again before the old socket is noticed as gone: the new connection waits, the old one is gone.
    const again = await connectAgain(m, { name: 'Ann', rejoin: ann.credential });
    expect(again.joined).toEqual({ status: 'waiting' });
    expect(ann.session.peer.state).toBe('left');
    expect(ann.connection.told.filter((n) => n.name === 'left').map((n) => n.data)).toEqual([{ reason: 'replaced' }]);
    expect(t.services.rooms.breakouts.roomsOf(m.id).flatMap((room) => room.joined().map((p) => p.name))).toEqual([]);
    expect(host.session.room.waitingList().map((p) => p.name)).toEqual(['Ann']);
    // Admitted, she is back in Design.
    await host.call('admit', { peerId: again.session.peer.id });
    const back = await again.call('join', { rtpCapabilities: fakeRtpCapabilities() });
    expect(back.status === 'joined' && back.breakout?.room).toEqual({ id: design, name: 'Design' });

    // A host assigns her to Budget; her page connects again with the old socket still in Design: she is in the
    // main room (Budget is one click away) and the old connection is gone from Design.
    await host.call('assignBreakouts', { assignments: [{ identity: again.identity, room: budget }] });
    const third = await connectAgain(m, { name: 'Ann', rejoin: again.credential });
    await host.call('admit', { peerId: third.session.peer.id });
    expect(await third.call('join', { rtpCapabilities: fakeRtpCapabilities() })).not.toHaveProperty('breakout');
    expect(again.session.peer.state).toBe('left');
    expect(t.services.rooms.breakouts.roomsOf(m.id).flatMap((room) => room.joined().map((p) => p.name))).toEqual([]);
    expect(namesIn(third.session)).toEqual(['Ann', 'Hana']);
  });

  it('back to the main room when the rooms closed meanwhile, or when a host had assigned the guest elsewhere', async () => {
    const closed = await twoRoomsInUse();
    dropSocket(closed.ann.session);
    await closed.host.call('closeBreakouts', {});
    t.clock.advance(30_000);
    expect(await worker().runOnce()).toBe(1);
    expect(namesIn(closed.host.session)).toEqual(['Bob', 'Hana']);
    const annAgain = await connectAgain(closed.m, { name: 'Ann', rejoin: closed.ann.credential });
    expect(annAgain.joined).not.toHaveProperty('breakout');
    expect(namesIn(annAgain.session)).toEqual(['Ann', 'Bob', 'Hana']);

    // Ann is in Design when the host assigns her to Budget; then her socket drops.
    const moved = await twoRoomsInUse();
    await moved.host.call('assignBreakouts', { assignments: [{ identity: moved.ann.identity, room: moved.budget }] });
    dropSocket(moved.ann.session);
    const again = await connectAgain(moved.m, { name: 'Ann', rejoin: moved.ann.credential });
    expect(again.joined).not.toHaveProperty('breakout');
    expect(again.session.room.breakout).toBeNull();
    // Budget is hers now: she moves there with one click.
    await again.call('moveToBreakout', { room: moved.budget });
    expect(namesIn(again.session)).toEqual(['Ann', 'Bob']);
  });

  it('a stranger (a new guest credential, no rejoin) is not placed in anyone’s breakout room', async () => {
    const { m, host } = await twoRoomsInUse();
    const stranger = await connectAgain(m, { name: 'Ann' });
    expect(stranger.joined).not.toHaveProperty('breakout');
    expect(namesIn(host.session)).toEqual(['Ann', 'Hana']);
  });
});

describe('polls reach every room of the meeting (fake media)', () => {
  it('a host in a breakout room opens a meeting-wide poll: guests in every room are told and vote, every host sees live results, everyone sees them closed', async () => {
    const { m, host, ann, bob, budget } = await twoRoomsInUse();
    const cohost = await roomPeer(t, m, 'Carl', { host: true });
    await host.call('moveToBreakout', { room: budget });
    const { poll } = await host.call('createPoll', { question: 'Lunch?', options: ['Pizza', 'Sushi'] });
    const [pizza, sushi] = poll.options.map((o) => o.id) as [string, string];
    const told = (c: { connection: { told: { name: string; data: unknown }[] } }, name: string) =>
      c.connection.told
        .filter((n) => n.name === name)
        .map((n) => (n.data as { poll: { id: string; options: { votes: number | null }[] } }).poll);
    // Ann in Design, Bob in Budget (with the host), Carl in the main room.
    for (const peer of [ann, bob, cohost]) expect(told(peer, 'pollOpened').map((p) => p.id)).toEqual([poll.id]);
    expect(told(host, 'pollOpened')).toEqual([]);

    await ann.call('votePoll', { pollId: poll.id, optionIds: [pizza] });
    await bob.call('votePoll', { pollId: poll.id, optionIds: [sushi] });
    // Live results reach both hosts, wherever they are; guests see no counts until it closes.
    for (const h of [host, cohost])
      expect(
        told(h, 'pollResults')
          .at(-1)!
          .options.map((o) => o.votes),
      ).toEqual([1, 1]);
    expect(told(ann, 'pollResults')).toEqual([]);
    expect(told(bob, 'pollResults')).toEqual([]);

    await host.call('closePoll', { pollId: poll.id });
    for (const peer of [ann, bob, cohost])
      expect(
        told(peer, 'pollClosed')
          .at(-1)!
          .options.map((o) => o.votes),
      ).toEqual([1, 1]);
    // A guest cannot open one from a breakout room either.
    await expect(ann.call('createPoll', { question: 'Mine?', options: ['a', 'b'] })).rejects.toMatchObject({ code: 'insufficient_scope' });
  });
});
