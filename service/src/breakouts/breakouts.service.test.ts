import { FakeRoomMediaProvider, principalIn, roomPeer, seedMeeting, startTestServer, type TestServer } from '@svc/service/testing';
import type { PeerInRoom } from '../rooms/room';
import { BreakoutsWorker } from '../rooms/breakouts.worker';
import { createLogger } from '../shared/logger';

let t: TestServer;
let media: FakeRoomMediaProvider;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_EMPTY_GRACE_SECONDS: '60' });
  media = new FakeRoomMediaProvider();
  t.services.rooms.useMedia(media);
});
afterAll(() => t.close());

const joined = (m: { id: string; code: string }, name: string, host = false) => roomPeer(t, m, name, { host });
const names = (session: PeerInRoom) =>
  session.room
    .joined()
    .map((p) => p.name)
    .sort();
/** A meeting with its host in the main room and Ann in its one open breakout room. */
async function annInTheOnlyBreakout() {
  const m = seedMeeting(t);
  const host = await joined(m, 'Hana', true);
  const ann = await joined(m, 'Ann');
  const { breakouts } = await host.call('createBreakouts', { names: ['Only'] });
  const room = breakouts.rooms[0]!.id;
  await host.call('assignBreakouts', { assignments: [{ identity: ann.identity, room }] });
  await host.call('openBreakouts', {});
  await ann.call('moveToBreakout', { room });
  return { m, host, ann, room };
}
const worker = () => new BreakoutsWorker(t.services.rooms, createLogger('silent'));

describe('breakout rooms on fake media', () => {
  it('a host prepares two rooms, assigns by hand and opens them; each guest moves into its own room on its own router; closing brings everyone back after 30 s', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'Hana', true);
    const ann = await joined(m, 'Ann');
    const bob = await joined(m, 'Bob');
    const main = host.session.room;
    const created = await host.call('createBreakouts', { names: ['Design', 'Budget'] });
    const [design, budget] = created.breakouts.rooms.map((r) => r.id) as [string, string];
    expect(created.breakouts).toMatchObject({
      status: 'draft',
      people: expect.arrayContaining([expect.objectContaining({ name: 'Ann' })]),
    });
    await host.call('assignBreakouts', {
      assignments: [
        { identity: ann.identity, room: design },
        { identity: bob.identity, room: budget },
      ],
    });
    // Before opening nobody moves.
    await expect(ann.call('moveToBreakout', { room: design })).rejects.toMatchObject({ code: 'conflict' });
    const opened = await host.call('openBreakouts', {});
    expect(opened.breakouts.status).toBe('open');
    const annSees = ann.connection.told.filter((n) => n.name === 'breakouts').at(-1)!.data as {
      breakouts: { mine: string; people: unknown[] };
    };
    expect(annSees.breakouts).toMatchObject({ mine: design, people: [] });

    // A guest may not go into another room.
    await expect(ann.call('moveToBreakout', { room: budget })).rejects.toMatchObject({ code: 'forbidden' });
    const routersBefore = media.created.length;
    const moved = await ann.call('moveToBreakout', { room: design });
    expect(moved.room).toEqual({ id: design, name: 'Design' });
    await bob.call('moveToBreakout', { room: budget });
    expect(media.created.length).toBe(routersBefore + 2);
    expect(ann.session.room).not.toBe(main);
    expect(ann.session.room.media).not.toBe(bob.session.room.media);
    expect([names(ann.session), names(bob.session), names(host.session)]).toEqual([['Ann'], ['Bob'], ['Hana']]);
    expect(host.connection.told.filter((n) => n.name === 'peerLeft')).toHaveLength(2);

    // The host visits the design room and comes back.
    await host.call('moveToBreakout', { room: design });
    expect(names(ann.session)).toEqual(['Ann', 'Hana']);
    await host.call('broadcastToBreakouts', { text: 'Five minutes left' });
    expect(bob.connection.told.filter((n) => n.name === 'breakoutMessage').map((n) => n.data)).toEqual([
      { text: 'Five minutes left', from: 'Hana' },
    ]);
    await host.call('moveToBreakout', { room: null });
    expect(host.session.room).toBe(main);

    const closing = await host.call('closeBreakouts', {});
    expect(closing.breakouts.status).toBe('closing');
    expect(Date.parse(closing.breakouts.closes_at!) - t.clock.now()).toBe(30_000);
    t.clock.advance(29_000);
    expect(await worker().runOnce()).toBe(0);
    expect(names(ann.session)).toEqual(['Ann']);
    t.clock.advance(1_000);
    expect(await worker().runOnce()).toBe(1);
    expect(ann.session.room).toBe(main);
    expect(bob.session.room).toBe(main);
    expect(names(host.session)).toEqual(['Ann', 'Bob', 'Hana']);
    expect(ann.connection.told.filter((n) => n.name === 'breakoutMoved').map((n) => (n.data as { room: unknown }).room)).toEqual([null]);
    expect(t.services.rooms.breakouts.roomsOf(m.id)).toEqual([]);

    const rest = await t.request('GET', `/api/v1/public/meetings/${m.code}/breakout-rooms`, { key: t.key(['meetings:read']) });
    expect(rest.status).toBe(200);
    expect(
      rest.body.data.map((r: { name: string; status: string; participants: { name: string }[] }) => [
        r.name,
        r.status,
        r.participants.map((p) => p.name),
      ]),
    ).toEqual([
      ['Design', 'closed', ['Ann']],
      ['Budget', 'closed', ['Bob']],
    ]);
  });

  it('assigns at random evenly (hosts stay), a timer that runs out starts the countdown, and only hosts manage rooms', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'Hana', true);
    const guests = await Promise.all(['G1', 'G2', 'G3', 'G4', 'G5'].map((name) => joined(m, name)));
    await expect(guests[0]!.call('createBreakouts', { names: ['Mine'] })).rejects.toMatchObject({ code: 'insufficient_scope' });
    await expect(host.call('createBreakouts', { names: ['A', 'a '] })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(host.call('createBreakouts', { names: [] })).rejects.toMatchObject({ code: 'validation_failed' });
    await host.call('createBreakouts', { names: ['A', 'B'] });
    const { breakouts } = await host.call('assignBreakoutsRandomly', {});
    const sizes = breakouts.rooms.map((r) => r.assigned.length).sort();
    expect(sizes).toEqual([2, 3]);
    const assigned = breakouts.rooms.flatMap((r) => r.assigned.map((a) => a.name)).sort();
    expect(assigned).toEqual(['G1', 'G2', 'G3', 'G4', 'G5']);
    await expect(guests[0]!.call('assignBreakoutsRandomly', {})).rejects.toMatchObject({ code: 'insufficient_scope' });
    await expect(host.call('assignBreakouts', { assignments: [{ identity: 'nobody', room: null }] })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(guests[0]!.call('openBreakouts', {})).rejects.toMatchObject({ code: 'insufficient_scope' });
    await host.call('openBreakouts', {});
    await expect(host.call('createBreakouts', { names: ['C'] })).rejects.toMatchObject({ code: 'conflict' });
    await expect(guests[0]!.call('closeBreakouts', {})).rejects.toMatchObject({ code: 'insufficient_scope' });
    await expect(guests[0]!.call('broadcastToBreakouts', { text: 'hi' })).rejects.toMatchObject({ code: 'insufficient_scope' });

    const timed = await host.call('setBreakoutTimer', { minutes: 10 });
    expect(Date.parse(timed.breakouts.timer_ends_at!) - t.clock.now()).toBe(600_000);
    t.clock.advance(600_000);
    expect(await worker().runOnce()).toBe(1);
    expect((await host.call('listBreakouts', {})).breakouts.status).toBe('closing');
    t.clock.advance(30_000);
    expect(await worker().runOnce()).toBe(1);
    expect((await host.call('listBreakouts', {})).breakouts.status).toBe('none');
  });

  it('moves a breakout room whose worker died to new media, like a main room, and tells its peers', async () => {
    const { ann, room } = await annInTheOnlyBreakout();
    const lost = media.created.at(-1)!;
    expect(ann.session.room.media).toBe(lost);
    media.loseWorker(lost);
    const deadline = Date.now() + 5_000;
    while (ann.session.room.media === lost && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ann.session.room.media).not.toBe(lost);
    expect(ann.session.room.breakout?.id).toBe(room);
    expect(ann.seen('mediaReset')).toEqual([{}]);
  });

  it('closes the breakout rooms with the meeting: everyone in them is out and recorded as left', async () => {
    const { m, ann } = await annInTheOnlyBreakout();
    t.services.meetings.end(t.services.meetings.findAnywhere(m.id));
    expect(ann.connection.told.at(-1)).toEqual({ name: 'left', data: { reason: 'meeting-ended' } });
    expect(t.services.rooms.breakouts.roomsOf(m.id)).toEqual([]);
    const rows = t.services.participants.list(principalIn(t, t.org.id), m.id, { after: null, limit: 10 }).data;
    expect(rows.every((p: { left_at: string | null }) => p.left_at !== null)).toBe(true);
  });
});
