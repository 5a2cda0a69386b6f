import {
  hostRoomCredential,
  joinRoom,
  RoomClient,
  roomCredential,
  seedMeeting,
  startTestServer,
  type TestServer,
  waitUntil,
} from '@svc/service/testing';
import type { RoomPoll } from '../polls/polls.protocol';

let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' }, { media: true });
  key = t.key();
});
afterAll(() => t.close());

describe('reconnecting inside a breakout room over the room socket (a real media worker)', () => {
  it('a guest whose socket closed in a breakout room is back in it on a new socket with her rejoin credential; polls reach her there; the refusals hold', async () => {
    const m = seedMeeting(t);
    const { client: host } = await joinRoom(await hostRoomCredential(t, key, m));
    const first = await roomCredential(t, m.code, { name: 'Ann' });
    const { client: ann, state } = await joinRoom(first);
    const { client: bob } = await joinRoom(await roomCredential(t, m.code, { name: 'Bob' }));
    const annIdentity = state.self.identity;
    const { breakouts } = await host.ok('createBreakouts', { names: ['Design'] });
    const design = breakouts.rooms[0]!.id;
    await host.ok('assignBreakouts', { assignments: [{ identity: annIdentity, room: design }] });
    await host.ok('openBreakouts', {});
    const mainCaps = (await ann.ok('getRouterRtpCapabilities', {})).rtpCapabilities;
    const moved = await ann.ok('moveToBreakout', { room: design });

    // The socket closes without `leave` (a network blip): Design, now empty, closes its media.
    ann.close();
    await waitUntil(() => t.services.rooms.breakouts.roomsOf(m.id).length === 0, 'Design to close');

    const again = await RoomClient.join(await roomCredential(t, m.code, { name: 'Ann', rejoin: first.credential }), mainCaps);
    expect(again.answer).toMatchObject({ ok: true, data: { status: 'joined', breakout: { room: { id: design, name: 'Design' } } } });
    const answer = again.answer as { data: { state: { self: { identity: string } }; breakout: { rtpCapabilities: unknown } } };
    expect(answer.data.state.self.identity).toBe(annIdentity);
    expect(answer.data.breakout.rtpCapabilities).toEqual(moved.rtpCapabilities);
    const seen = (await again.client.ok('listBreakouts', {})).breakouts;
    expect(seen).toMatchObject({ current: design, mine: design });
    // She sets up her media again there (Design opened again on a router of its own).
    expect(t.services.rooms.breakouts.roomsOf(m.id).map((r) => r.breakout!.id)).toEqual([design]);
    expect(await again.client.ok('createTransport', { direction: 'send' })).toMatchObject({ id: expect.any(String) });

    // Refused at the socket: Bob is not assigned to Design; a guest cannot open a poll from a breakout room.
    expect(await bob.call('moveToBreakout', { room: design })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await again.client.call('createPoll', { question: 'Mine?', options: ['a', 'b'] })).toMatchObject({
      ok: false,
      error: { code: 'insufficient_scope' },
    });

    // The host's poll from the main room reaches her in Design; her vote reaches the host live.
    const { poll } = await host.ok('createPoll', { question: 'Break?', options: ['Yes', 'No'] });
    const opened = (await again.client.next('pollOpened')).poll as RoomPoll;
    expect(opened.id).toBe(poll.id);
    await again.client.ok('votePoll', { pollId: poll.id, optionIds: [poll.options[0]!.id] });
    expect(((await host.next('pollResults')).poll as RoomPoll).options.map((o) => o.votes)).toEqual([1, 0]);

    // A stranger (a new credential with the same name, no rejoin) is not placed in Design.
    const stranger = await RoomClient.join(await roomCredential(t, m.code, { name: 'Ann' }), mainCaps);
    expect(stranger.answer).toMatchObject({ ok: true, data: { status: 'joined' } });
    expect(stranger.answer.ok && 'breakout' in stranger.answer.data).toBe(false);
    for (const client of [host, again.client, bob, stranger.client]) client.close();
  });
});
