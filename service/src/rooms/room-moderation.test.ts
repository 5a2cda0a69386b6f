import {
  FakeRoomMediaProvider,
  fakeRtpCapabilities,
  newHolderSecret,
  principalIn,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '@svc/service/testing';
import { AppError } from '../shared/errors';
import type { PeerConnection } from './peer';
import type { PeerInRoom } from './room';
import { handleRoomRequest } from './room.handlers';
import type { RoomMethod, RoomMethods, RoomNotification, RoomNotifications } from './room.protocol';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  t.services.rooms.useMedia(new FakeRoomMediaProvider());
});
afterAll(() => t.close());

type Told = { name: RoomNotification; data: unknown }[];

/** A socket as the RoomsService sees one, keeping what it is told. */
function socket(): PeerConnection & { told: Told } {
  const told: Told = [];
  return { told, notify: (name, data) => void told.push({ name, data }), close: () => undefined };
}

/** A peer connected to meeting `m` and (unless the room refuses) joined, with helpers to call methods as it. */
async function enter(m: { id: string; code: string }, as: 'host' | string) {
  const body =
    as === 'host'
      ? {
          name: 'Host',
          host: new URL(t.services.roomLinks.hostLink(principalIn(t, t.org.id), m.id).url).searchParams.get('host'),
          holder: newHolderSecret(),
        }
      : { name: as };
  const { credential } = t.services.roomAccess.issueCredential(m.code, body, 'ws://test');
  const connection = socket();
  const session = await t.services.rooms.connect(t.services.roomAccess.admissionOf(credential), connection);
  const call = <M extends RoomMethod>(method: M, data: RoomMethods[M]['data']) =>
    handleRoomRequest(session, method, data, t.services.rooms) as Promise<RoomMethods[M]['result']>;
  const seen = <N extends RoomNotification>(name: N) =>
    connection.told.filter((n) => n.name === name).map((n) => n.data as RoomNotifications[N]);
  return { session, connection, call, seen, id: session.peer.id };
}

async function joined(m: { id: string; code: string }, as: 'host' | string) {
  const peer = await enter(m, as);
  await peer.call('join', { rtpCapabilities: fakeRtpCapabilities() });
  return peer;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

async function produce(session: PeerInRoom, source: 'microphone' | 'camera' | 'screen', paused = false) {
  const transportId = (await handleRoomRequest(session, 'createTransport', { direction: 'send' }, t.services.rooms)) as { id: string };
  const kind = source === 'microphone' ? 'audio' : 'video';
  const data = { transportId: transportId.id, kind, rtpParameters: {}, source, paused };
  return handleRoomRequest(session, 'produce', data, t.services.rooms) as Promise<{ producerId: string }>;
}

describe('hands and reactions', () => {
  it('lists raised hands in order, lets people lower their own and a host lower one or all; guests cannot lower others', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'host');
    const ann = await joined(m, 'Ann');
    const bob = await joined(m, 'Bob');

    await bob.call('raiseHand', {});
    const { hands } = await ann.call('raiseHand', {});
    expect(hands.map((hand) => [hand.name, hand.order])).toEqual([
      ['Bob', 1],
      ['Ann', 2],
    ]);
    // Raising again keeps the place.
    expect((await bob.call('raiseHand', {})).hands.map((hand) => hand.name)).toEqual(['Bob', 'Ann']);
    expect(host.seen('hands').at(-1)).toMatchObject({ raised: ann.id, hands: [{ name: 'Bob' }, { name: 'Ann' }] });

    expect((await refusal(ann.call('lowerHand', { peerId: bob.id }))).code).toBe('insufficient_scope');
    expect((await refusal(ann.call('lowerAllHands', {}))).code).toBe('insufficient_scope');
    expect(host.seen('hands').at(-1)!.hands).toHaveLength(2);

    await host.call('lowerHand', { peerId: bob.id });
    expect(ann.seen('hands').at(-1)).toMatchObject({ lowered: [bob.id], by: 'Host', hands: [{ name: 'Ann', order: 1 }] });
    await bob.call('raiseHand', {});
    await ann.call('lowerHand', {});
    expect(host.seen('hands').at(-1)).toMatchObject({ lowered: [ann.id], hands: [{ name: 'Bob', order: 1 }] });
    await ann.call('raiseHand', {});
    expect((await host.call('lowerAllHands', {})).hands).toEqual([]);
    expect(bob.seen('hands').at(-1)).toMatchObject({ hands: [], lowered: [bob.id, ann.id], by: 'Host' });

    // A peer who leaves takes their hand with them; a late joiner sees the hands in its state.
    await bob.call('raiseHand', {});
    await ann.call('raiseHand', {});
    t.services.rooms.leave(bob.session, 'left');
    expect(host.seen('hands').at(-1)).toMatchObject({ lowered: [bob.id], hands: [{ name: 'Ann', order: 1 }] });
    const cy = await enter(m, 'Cy');
    const answer = await cy.call('join', { rtpCapabilities: fakeRtpCapabilities() });
    expect(answer).toMatchObject({ status: 'joined', state: { hands: [{ name: 'Ann', order: 1 }], locked: false } });
  });

  it('shows a reaction to everyone, refuses emoji outside the set and more than 5 in 5 seconds', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'host');
    const ann = await joined(m, 'Ann');
    await ann.call('sendReaction', { emoji: '👍' });
    expect(host.seen('reaction')).toEqual([{ peerId: ann.id, emoji: '👍' }]);
    expect(ann.seen('reaction')).toEqual([{ peerId: ann.id, emoji: '👍' }]);
    const bad = await refusal(ann.call('sendReaction', { emoji: '💩' } as never));
    expect(bad.code).toBe('validation_failed');

    for (const emoji of ['👏', '😂', '❤️', '🎉'] as const) await ann.call('sendReaction', { emoji });
    expect((await refusal(ann.call('sendReaction', { emoji: '😮' }))).code).toBe('rate_limited');
    expect(host.seen('reaction')).toHaveLength(5);
    // Someone else's allowance is their own.
    await host.call('sendReaction', { emoji: '🎉' });
    t.clock.advance(1_000);
    await ann.call('sendReaction', { emoji: '😮' });
    expect((await refusal(ann.call('sendReaction', { emoji: '😮' }))).code).toBe('rate_limited');
    expect(host.seen('reaction').map((r) => r.emoji)).toEqual(['👍', '👏', '😂', '❤️', '🎉', '🎉', '😮']);
  });
});

describe('moderation', () => {
  it('refuses every host method to a guest and changes nothing', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'host');
    const ann = await joined(m, 'Ann');
    await produce(host.session, 'microphone');
    const calls: [RoomMethod, unknown][] = [
      ['mutePeer', { peerId: host.id }],
      ['muteAll', {}],
      ['askToUnmute', { peerId: host.id }],
      ['stopMedia', { peerId: host.id, source: 'camera' }],
      ['setPermissions', { screen: false }],
      ['setLocked', { locked: true }],
      ['makeCoHost', { peerId: ann.id }],
      ['lowerAllHands', {}],
    ];
    for (const [method, data] of calls) {
      const error = await refusal(handleRoomRequest(ann.session, method, data, t.services.rooms));
      expect([method, error.code]).toEqual([method, 'insufficient_scope']);
    }
    const room = ann.session.room;
    expect(room.controls).toMatchObject({ locked: false, permissions: { unmute: true, video: true, screen: true } });
    expect(host.session.peer.media.microphone!.paused).toBe(false);
    expect(ann.session.peer.isHost).toBe(false);
  });

  it('mutes one peer or everyone (the server pauses their microphone and tells them), and only asks to unmute', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'host');
    const ann = await joined(m, 'Ann');
    const bob = await joined(m, 'Bob');
    const { producerId: annMic } = await produce(ann.session, 'microphone');
    await produce(bob.session, 'microphone');
    await produce(host.session, 'microphone');

    await host.call('mutePeer', { peerId: ann.id });
    expect(ann.session.peer.media.microphone).toEqual({ producerId: annMic, paused: true });
    expect(ann.seen('moderated')).toEqual([{ action: 'muted', source: 'microphone', by: 'Host' }]);
    expect(bob.seen('peerUpdated').at(-1)!.peer).toMatchObject({ id: ann.id, media: { microphone: { paused: true } } });
    expect(ann.session.room.media).toBeDefined();

    await host.call('askToUnmute', { peerId: ann.id });
    expect(ann.seen('unmuteRequested')).toEqual([{ by: 'Host' }]);
    // Still muted until Ann herself unmutes.
    expect(ann.session.peer.media.microphone!.paused).toBe(true);
    await ann.call('resumeProducer', { producerId: annMic });
    expect(ann.session.peer.media.microphone!.paused).toBe(false);
    expect((await refusal(host.call('askToUnmute', { peerId: ann.id }))).code).toBe('conflict');

    expect(await host.call('muteAll', {})).toEqual({ muted: 2 });
    expect(host.session.peer.media.microphone!.paused).toBe(false);
    expect(bob.session.peer.media.microphone!.paused).toBe(true);
    expect(bob.seen('moderated')).toHaveLength(1);
  });

  it('stops a camera or screen share by closing the producer', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'host');
    const ann = await joined(m, 'Ann');
    await produce(ann.session, 'camera');
    await produce(ann.session, 'screen');
    await host.call('stopMedia', { peerId: ann.id, source: 'screen' });
    expect(Object.keys(ann.session.peer.media)).toEqual(['camera']);
    expect(ann.seen('moderated')).toEqual([{ action: 'stopped', source: 'screen', by: 'Host' }]);
    await host.call('stopMedia', { peerId: ann.id, source: 'camera' });
    expect(ann.session.peer.media).toEqual({});
    expect((await refusal(host.call('stopMedia', { peerId: ann.id, source: 'camera' }))).code).toBe('conflict');
  });

  it('enforces guest permissions in produce and resumeProducer; hosts are not bound by them', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'host');
    const ann = await joined(m, 'Ann');
    const { producerId: mic } = await produce(ann.session, 'microphone', true);
    expect(await host.call('setPermissions', { unmute: false, screen: false })).toEqual({
      permissions: { unmute: false, video: true, screen: false },
    });
    expect(ann.seen('permissions').at(-1)).toEqual({ permissions: { unmute: false, video: true, screen: false } });

    const resume = await refusal(ann.call('resumeProducer', { producerId: mic }));
    expect(resume).toMatchObject({ code: 'forbidden', extra: { reason: 'unmute_not_allowed' } });
    expect(ann.session.peer.media.microphone!.paused).toBe(true);
    expect(await refusal(produce(ann.session, 'screen'))).toMatchObject({ code: 'forbidden', extra: { reason: 'screen_not_allowed' } });
    expect(ann.session.peer.media.screen).toBeUndefined();
    await produce(ann.session, 'camera');
    await produce(host.session, 'screen');

    await host.call('setPermissions', { unmute: true });
    await ann.call('resumeProducer', { producerId: mic });
    expect(ann.session.peer.media.microphone!.paused).toBe(false);
    const cy = await joined(m, 'Cy');
    expect(cy.seen('permissions')).toEqual([]);
    expect(ann.session.room.controls.permissions).toEqual({ unmute: true, video: true, screen: false });
  });

  it('locks the meeting: nobody new joins, those already in the waiting room and people who were in get in', async () => {
    const m = seedMeeting(t, { settings: { waiting_room: true } });
    const host = await joined(m, 'host');
    const waiting = await enter(m, 'Wendy');
    expect(await waiting.call('join', { rtpCapabilities: fakeRtpCapabilities() })).toEqual({ status: 'waiting' });
    const ann = await enter(m, 'Ann');
    await ann.call('join', { rtpCapabilities: fakeRtpCapabilities() });
    await host.call('admit', { peerId: ann.id });
    await ann.call('join', { rtpCapabilities: fakeRtpCapabilities() });
    expect(ann.session.peer.state).toBe('joined');

    // Late got a credential before the lock: the join refuses them.
    const late = await enter(m, 'Late');
    await host.call('setLocked', { locked: true });
    expect(ann.seen('locked')).toEqual([{ locked: true }]);
    const refused = await refusal(late.call('join', { rtpCapabilities: fakeRtpCapabilities() }));
    expect(refused).toMatchObject({ code: 'forbidden', extra: { reason: 'meeting_locked' } });
    expect(late.session.peer.state).toBe('connected');
    expect(
      host
        .seen('waiting')
        .at(-1)!
        .peers.map((p) => p.name),
    ).toEqual(['Wendy']);

    // Wendy was waiting before the lock: a host still lets her in.
    await host.call('admit', { peerId: waiting.id });
    expect(await waiting.call('join', { rtpCapabilities: fakeRtpCapabilities() })).toMatchObject({ status: 'joined' });
    // A new guest credential is a new person, whatever the name: refused at once. A host's is not.
    const newCredential = (() => {
      try {
        return t.services.roomAccess.issueCredential(m.code, { name: 'Ann' }, 'ws://test');
      } catch (error) {
        return error;
      }
    })();
    expect(newCredential).toMatchObject({ code: 'forbidden', extra: { reason: 'meeting_locked' } });
    await joined(m, 'host');

    await host.call('setLocked', { locked: false });
    expect(await late.call('join', { rtpCapabilities: fakeRtpCapabilities() })).toEqual({ status: 'waiting' });
  });

  it('lets a guest who was in a locked room back with their earlier credential (rejoin), not a stranger with a forged or old one', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'host');
    const first = t.services.roomAccess.issueCredential(m.code, { name: 'Ann' }, 'ws://test');
    const connection = socket();
    const ann = await t.services.rooms.connect(t.services.roomAccess.admissionOf(first.credential), connection);
    await handleRoomRequest(ann, 'join', { rtpCapabilities: fakeRtpCapabilities() }, t.services.rooms);
    await host.call('setLocked', { locked: true });
    const issue = (body: Record<string, unknown>) => {
      try {
        return t.services.roomAccess.issueCredential(m.code, body, 'ws://test');
      } catch (error) {
        return error as AppError;
      }
    };

    // Her page reconnects after the credential expired: same identity, let back in; her old connection is replaced.
    t.clock.advance(11 * 60 * 1000);
    const again = issue({ name: 'Ann', rejoin: first.credential });
    expect(again).toMatchObject({ identity: first.identity });
    const back = await t.services.rooms.connect(t.services.roomAccess.admissionOf((again as { credential: string }).credential), socket());
    expect(await handleRoomRequest(back, 'join', { rtpCapabilities: fakeRtpCapabilities() }, t.services.rooms)).toMatchObject({
      status: 'joined',
    });
    expect(connection.told.at(-1)).toEqual({ name: 'left', data: { reason: 'replaced' } });

    // A tampered credential, another meeting's, or one older than 12 hours makes a stranger: refused while locked.
    const [payload, signature] = first.credential.split('.') as [string, string];
    const forged = `${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const other = seedMeeting(t);
    await joined(other, 'host');
    const elsewhere = t.services.roomAccess.issueCredential(other.code, { name: 'Ann' }, 'ws://test').credential;
    for (const rejoin of [forged, elsewhere, 'not-a-credential']) {
      expect([rejoin, issue({ name: 'Ann', rejoin })]).toMatchObject([rejoin, { code: 'forbidden', extra: { reason: 'meeting_locked' } }]);
    }
    t.clock.advance(12 * 60 * 60 * 1000);
    expect(issue({ name: 'Ann', rejoin: first.credential })).toMatchObject({ code: 'forbidden', extra: { reason: 'meeting_locked' } });
  });

  it('makes a guest a co-host: host powers in the room (admit, mute), seen by everyone', async () => {
    const m = seedMeeting(t, { settings: { waiting_room: true } });
    const host = await joined(m, 'host');
    const ann = await enter(m, 'Ann');
    await ann.call('join', { rtpCapabilities: fakeRtpCapabilities() });
    await host.call('admit', { peerId: ann.id });
    await ann.call('join', { rtpCapabilities: fakeRtpCapabilities() });
    const bob = await enter(m, 'Bob');
    await bob.call('join', { rtpCapabilities: fakeRtpCapabilities() });
    expect((await refusal(ann.call('admit', { peerId: bob.id }))).code).toBe('insufficient_scope');

    await host.call('makeCoHost', { peerId: ann.id });
    expect(host.seen('peerUpdated').at(-1)!.peer).toMatchObject({ id: ann.id, role: 'host', coHost: true });
    expect(
      ann
        .seen('waiting')
        .at(-1)!
        .peers.map((p) => p.name),
    ).toEqual(['Bob']);
    await ann.call('admit', { peerId: bob.id });
    await bob.call('join', { rtpCapabilities: fakeRtpCapabilities() });
    expect(bob.session.peer.state).toBe('joined');
    expect((await refusal(host.call('makeCoHost', { peerId: ann.id }))).code).toBe('conflict');
    await ann.call('setLocked', { locked: true });
    expect(bob.seen('locked')).toEqual([{ locked: true }]);
  });
});
