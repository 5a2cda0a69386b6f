import {
  hostRoomCredential,
  joinRoom,
  roomCredential,
  RoomClient,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '@svc/service/testing';
import type { RoomMethod, RoomMethods } from './room.protocol';

// Hands, reactions and moderation refused at the room socket itself (a real worker behind it), whatever a page shows.
let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' }, { media: true });
  key = t.key();
});
afterAll(() => t.close());

async function room(settings: { waiting_room?: boolean } = {}) {
  const m = seedMeeting(t, { settings });
  const { client: host, state } = await joinRoom(await hostRoomCredential(t, key, m));
  return { m, host, hostId: state.self.id };
}

const refused = async <M extends RoomMethod>(client: RoomClient, method: M, data: RoomMethods[M]['data']) => {
  const answer = await client.call(method, data);
  if (answer.ok) throw new Error(`${method} was accepted`);
  return answer.error;
};

describe('moderation at the room socket', () => {
  it('answers a guest calling host methods with insufficient_scope, and the room is unchanged', async () => {
    const { m, host, hostId } = await room();
    const { client: guest, state } = await joinRoom(await roomCredential(t, m.code, { name: 'Gus' }));
    const attempts: { [M in RoomMethod]?: RoomMethods[M]['data'] } = {
      mutePeer: { peerId: hostId },
      muteAll: {},
      askToUnmute: { peerId: hostId },
      stopMedia: { peerId: hostId, source: 'screen' },
      setPermissions: { unmute: false },
      setLocked: { locked: true },
      makeCoHost: { peerId: state.self.id },
      lowerAllHands: {},
      lowerHand: { peerId: hostId },
    };
    for (const [method, data] of Object.entries(attempts)) {
      const error = await refused(guest, method as RoomMethod, data as never);
      expect([method, error.code]).toEqual([method, 'insufficient_scope']);
    }
    expect(host.all('locked')).toEqual([]);
    expect(host.all('permissions')).toEqual([]);
    expect(host.all('peerUpdated')).toEqual([]);
    // The host may: the same socket protocol accepts it.
    expect(await host.ok('setPermissions', { screen: false })).toEqual({ permissions: { unmute: true, video: true, screen: false } });
    expect((await guest.next('permissions')).permissions.screen).toBe(false);
    // ...and the refusal holds where media starts: a guest's screen share is refused before it reaches the worker.
    const { id: transportId } = await guest.ok('createTransport', { direction: 'send' });
    const share = await refused(guest, 'produce', { transportId, kind: 'video', rtpParameters: {}, source: 'screen' });
    expect(share).toMatchObject({ code: 'forbidden' });
    guest.close();
    host.close();
  });

  it('refuses a reaction outside the set and the sixth within five seconds', async () => {
    const { m, host } = await room();
    const { client: guest } = await joinRoom(await roomCredential(t, m.code, { name: 'Gus' }));
    expect((await refused(guest, 'sendReaction', { emoji: '🙈' as never })).code).toBe('validation_failed');
    for (let i = 0; i < 5; i++) await guest.ok('sendReaction', { emoji: '👏' });
    const limited = await refused(guest, 'sendReaction', { emoji: '👏' });
    expect(limited.code).toBe('rate_limited');
    await host.until(() => host.all('reaction').length === 5, 'five reactions');
    expect(host.all('reaction').every((r) => r.emoji === '👏')).toBe(true);
    guest.close();
    host.close();
  });

  it('keeps a new guest out of a locked meeting (credential and join: forbidden/meeting_locked); unlocked, they join', async () => {
    const { m, host } = await room();
    const lateCredential = await roomCredential(t, m.code, { name: 'Late' });
    await host.ok('setLocked', { locked: true });
    // A new credential is refused with problem+json; one issued before the lock is refused at join.
    const refusedCredential = await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: { name: 'Later' } });
    expect(refusedCredential.status).toBe(403);
    expect(refusedCredential.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refusedCredential.body).toMatchObject({ code: 'forbidden', reason: 'meeting_locked' });
    expect((await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: { name: 'Host', host: 'x' } })).status).toBe(401);
    const { client: late, answer } = await RoomClient.join(lateCredential);
    expect(answer).toMatchObject({ ok: false, error: { code: 'forbidden', reason: 'meeting_locked' } });
    expect(host.all('peerJoined')).toEqual([]);
    await host.ok('setLocked', { locked: false });
    expect((await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: { name: 'Later' } })).status).toBe(201);
    expect(await late.ok('join', { rtpCapabilities: (await late.ok('getRouterRtpCapabilities', {})).rtpCapabilities })).toMatchObject({
      status: 'joined',
    });
    late.close();
    host.close();
  });

  it('lists hands in the order they went up for everyone', async () => {
    const { m, host } = await room();
    const { client: ann } = await joinRoom(await roomCredential(t, m.code, { name: 'Ann' }));
    const { client: bob } = await joinRoom(await roomCredential(t, m.code, { name: 'Bob' }));
    await bob.ok('raiseHand', {});
    await ann.ok('raiseHand', {});
    await host.until(() => host.all('hands').length === 2, 'two hand changes');
    expect(
      host
        .all('hands')
        .at(-1)!
        .hands.map((hand) => [hand.name, hand.order]),
    ).toEqual([
      ['Bob', 1],
      ['Ann', 2],
    ]);
    await host.ok('lowerAllHands', {});
    expect((await ann.next('hands', 2)).hands).toEqual([]);
    for (const client of [ann, bob, host]) client.close();
  });
});
