/** The rooms on a real mediasoup worker, through the room socket (Room and RoomsService on fake media: room.test.ts, rooms.service.test.ts). */
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import {
  hostRoomCredential,
  joinRoom,
  principalIn,
  roomCredential,
  RoomClient,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '@svc/service/testing';
import type { CreateMeetingInput } from '../meetings/meetings.schemas';
import type { JoinCredential } from './room.protocol';

/** Valid RTP parameters of an Opus sender, enough for the SFU to accept a producer without a browser. */
const OPUS_SEND = {
  codecs: [{ mimeType: 'audio/opus', payloadType: 111, clockRate: 48_000, channels: 2, parameters: {}, rtcpFeedback: [] }],
  encodings: [{ ssrc: 11_111_111 }],
  rtcp: { cname: 'test' },
};

let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_EMPTY_GRACE_SECONDS: '60', SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' }, { media: true });
  key = t.key();
});
afterAll(() => t.close());

function meeting(input: Partial<CreateMeetingInput> = {}) {
  return seedMeeting(t, input);
}

const credential = (code: string, body?: Record<string, unknown>): Promise<JoinCredential> => roomCredential(t, code, body);
const hostCredential = (id: string, code: string): Promise<JoinCredential> => hostRoomCredential(t, key, { id, code });
const joined = joinRoom;

const status = (id: string) => t.services.meetings.findAnywhere(id).status;

describe('the room socket', () => {
  it('makes the meeting live at the first join, records participants, and tells the others who joins and leaves', async () => {
    const m = meeting();
    const { client: ann, state } = await joined(await credential(m.code, { name: 'Ann' }));
    expect(state).toMatchObject({ participantCount: 1, canSendMedia: true, peers: [], chat: [] });
    expect(status(m.id)).toBe('live');
    const started = await t.request('GET', '/api/v1/public/events?limit=100', { key });
    expect(
      started.body.data.some(
        (e: { type: string; data: { meeting: { id: string } } }) => e.type === 'meeting.started' && e.data.meeting.id === m.id,
      ),
    ).toBe(true);

    const { client: bob, state: bobState } = await joined(await credential(m.code, { name: 'Bob' }));
    expect(bobState.peers.map((p) => p.name)).toEqual(['Ann']);
    expect((await ann.next('peerJoined')).peer.name).toBe('Bob');
    expect(await ann.next('participantCount', 1)).toEqual({ count: 2 });

    await bob.ok('leave', {});
    expect(await bob.closed()).toBe(1000);
    expect(await ann.next('peerLeft')).toMatchObject({ peerId: bobState.self.id, reason: 'left' });
    expect(await ann.next('participantCount', 2)).toEqual({ count: 1 });
    const people = await t.request('GET', `/api/v1/public/meetings/${m.id}/participants`, { key });
    const bobRow = people.body.data.find((p: { name: string }) => p.name === 'Bob');
    expect(bobRow).toMatchObject({ role: 'guest', left_at: expect.any(String) });
    expect(people.body.data.find((p: { name: string }) => p.name === 'Ann').left_at).toBeNull();
    ann.close();
  });

  it("refuses another peer's transports, producers and consumers as unknown, and they keep working", async () => {
    const m = meeting();
    const { client: ann } = await joined(await credential(m.code, { name: 'Ann' }));
    const { client: bob } = await joined(await credential(m.code, { name: 'Bob' }));
    const annSend = await ann.ok('createTransport', { direction: 'send' });
    const { producerId } = await ann.ok('produce', {
      transportId: annSend.id,
      kind: 'audio',
      rtpParameters: OPUS_SEND,
      source: 'microphone',
    });
    expect((await bob.next('peerUpdated')).peer.media.microphone).toEqual({ producerId, paused: false });

    const dtlsParameters = { role: 'client', fingerprints: [{ algorithm: 'sha-256', value: annSend.id }] };
    const refusals = await Promise.all([
      bob.call('connectTransport', { transportId: annSend.id, dtlsParameters }),
      bob.call('restartIce', { transportId: annSend.id }),
      bob.call('produce', { transportId: annSend.id, kind: 'audio', rtpParameters: OPUS_SEND, source: 'microphone' }),
      bob.call('closeProducer', { producerId }),
      bob.call('pauseProducer', { producerId }),
      bob.call('resumeConsumer', { consumerId: producerId }),
      bob.call('setConsumerLayers', { consumerId: producerId, spatialLayer: 0 }),
    ]);
    for (const refusal of refusals) expect(refusal).toMatchObject({ ok: false, error: { code: 'not_found' } });

    await ann.ok('pauseProducer', { producerId });
    expect((await bob.next('peerUpdated', 1)).peer.media.microphone).toEqual({ producerId, paused: true });
    expect(
      await ann.call('produce', { transportId: annSend.id, kind: 'audio', rtpParameters: OPUS_SEND, source: 'microphone' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    ann.close();
    bob.close();
  });

  it('keeps host-only methods to hosts, aimed at other guests and at people waiting', async () => {
    const m = meeting({ settings: { waiting_room: true } });
    const { client: host, state: hostState } = await joined(await hostCredential(m.id, m.code));
    const guestSocket = await RoomClient.join(await credential(m.code, { name: 'Guest' }));
    await host.ok('admit', { peerId: (await host.waitingPeer('Guest')).id });
    await guestSocket.client.next('admitted');
    await guestSocket.client.ok('join', { rtpCapabilities: {} });
    const guest = guestSocket.client;
    const { client: other, state: otherState } = await joined(await hostRoomCredential(t, key, m, 'Other host'));
    const knocking = await RoomClient.join(await credential(m.code, { name: 'Knocking' }));
    const waiting = await host.waitingPeer('Knocking');
    const room = t.services.rooms.liveRooms().find((r) => r.meeting.id === m.id)!;

    for (const [method, data] of [
      ['endMeeting', {}],
      ['remove', { peerId: otherState.self.id }],
      ['remove', { peerId: hostState.self.id }],
      ['admit', { peerId: waiting.id }],
      ['deny', { peerId: waiting.id }],
      ['startRecording', {}],
      ['stopRecording', {}],
    ] as const) {
      expect(await guest.call(method, data as never)).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });
    }
    expect(status(m.id)).toBe('live');
    expect(room.joined()).toHaveLength(3);
    expect(room.waitingList().map((p) => p.name)).toEqual(['Knocking']);
    expect(room.recording).toBe(false);
    expect(t.services.recordings.list(principalIn(t, t.org.id), m.id, { after: null, limit: 10 }).data).toEqual([]);
    expect([host.closeCode, other.closeCode, knocking.client.closeCode]).toEqual([null, null, null]);
    for (const client of [host, guest, other, knocking.client]) client.close();
  });

  it('keeps a removed person out: their credential, personal link or embed token brings them to the waiting room until a host admits them', async () => {
    const m = meeting();
    const { client: host } = await joined(await hostCredential(m.id, m.code));
    const guestCredential = await credential(m.code, { name: 'Mallory' });
    const first = await joined(guestCredential);
    await host.ok('remove', { peerId: first.state.self.id });
    expect(await first.client.next('left')).toEqual({ reason: 'removed' });

    // The same credential again: held in the waiting room (the meeting has none), marked for the host.
    const again = await RoomClient.join(guestCredential);
    expect(again.answer).toMatchObject({ ok: true, data: { status: 'waiting' } });
    const knock = await host.waitingPeer('Mallory');
    expect(knock.removedEarlier).toBe(true);
    expect(await again.client.call('sendChat', { text: 'I am back' })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    // Denied, they stay removed; a host's admit lets them back for good.
    await host.ok('deny', { peerId: knock.id });
    await again.client.closed();
    const third = await RoomClient.join(guestCredential);
    expect(third.answer).toMatchObject({ ok: true, data: { status: 'waiting' } });
    const thirdKnock = () =>
      host
        .all('waiting')
        .at(-1)!
        .peers.find((p) => p.name === 'Mallory' && p.id !== knock.id);
    await host.until(() => thirdKnock() !== undefined, 'the third knock');
    await host.ok('admit', { peerId: thirdKnock()!.id });
    await third.client.next('admitted');
    expect(await third.client.ok('join', { rtpCapabilities: {} })).toMatchObject({ status: 'joined' });
    third.client.close();
    await third.client.closed();
    expect((await joined(guestCredential)).state.self.name).toBe('Mallory');

    // A fresh guest with another name is somebody else: let in.
    expect((await joined(await credential(m.code, { name: 'Newcomer' }))).state.self.name).toBe('Newcomer');
    host.close();
  });

  it('keeps a removed webinar registrant and a removed embed guest out when they come back with a new credential', async () => {
    const webinar = meeting({ kind: 'webinar', slug: `removals-${Date.now()}` });
    const { client: host } = await joined(await hostCredential(webinar.id, webinar.code));
    const registered = await t.request('POST', `/api/v1/public/webinars/${webinar.slug}/registrations`, {
      key,
      body: { email: 'eve@example.com', name: 'Eve' },
    });
    expect(registered.status).toBe(201);
    const invite = new URL(registered.body.join_url as string).searchParams.get('invite')!;
    const registrant = await joined(await credential(webinar.code, { invite }));
    await host.ok('remove', { peerId: registrant.state.self.id });
    await registrant.client.closed();
    const back = await RoomClient.join(await credential(webinar.code, { invite }));
    expect(back.answer).toMatchObject({ ok: true, data: { status: 'waiting' } });
    expect((await host.waitingPeer('Eve')).removedEarlier).toBe(true);
    back.client.close();

    const m = meeting();
    const { client: mHost } = await joined(await hostCredential(m.id, m.code));
    const minted = await t.request('POST', '/api/v1/public/embed/tokens', { key, body: { meeting: m.code, name: 'Embedded Ed' } });
    expect(minted.status).toBe(201);
    const embedded = await joined(await credential(m.code, { embed: minted.body.token }));
    await mHost.ok('remove', { peerId: embedded.state.self.id });
    await embedded.client.closed();
    const fresh = await credential(m.code, { embed: minted.body.token });
    expect(fresh.identity).not.toBe(embedded.state.self.identity);
    const returning = await RoomClient.join(fresh);
    expect(returning.answer).toMatchObject({ ok: true, data: { status: 'waiting' } });
    expect((await mHost.waitingPeer('Embedded Ed')).removedEarlier).toBe(true);
    for (const client of [host, mHost, returning.client]) client.close();
  });

  it('holds guests in the waiting room until a host admits them; a denied guest is told and disconnected', async () => {
    const m = meeting({ settings: { waiting_room: true } });
    const first = await RoomClient.join(await credential(m.code, { name: 'Early' }));
    expect(first.answer).toMatchObject({ ok: true, data: { status: 'waiting' } });
    expect(await first.client.call('sendChat', { text: 'let me in' })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(status(m.id)).toBe('scheduled');

    const { client: host, state } = await joined(await hostCredential(m.id, m.code));
    expect(state.waiting.map((w) => w.name)).toEqual(['Early']);
    const second = await RoomClient.join(await credential(m.code, { name: 'Crasher' }));
    const waiting = await host.next('waiting');
    expect(waiting.peers.map((w) => w.name)).toEqual(['Early', 'Crasher']);

    await host.ok('admit', { peerId: waiting.peers[0]!.id });
    await first.client.next('admitted');
    const entered = await first.client.ok('join', { rtpCapabilities: {} });
    expect(entered).toMatchObject({ status: 'joined', state: { participantCount: 2 } });
    expect((await host.next('peerJoined')).peer.name).toBe('Early');

    await host.ok('deny', { peerId: waiting.peers[1]!.id });
    expect(await second.client.next('left')).toEqual({ reason: 'denied' });
    expect(await second.client.closed()).toBe(1000);
    host.close();
    first.client.close();
  });

  it('lets a host remove a participant and end the meeting for everyone', async () => {
    const m = meeting();
    const { client: host } = await joined(await hostCredential(m.id, m.code));
    const { client: guest, state: guestState } = await joined(await credential(m.code, { name: 'Noisy' }));
    const { client: other } = await joined(await credential(m.code, { name: 'Quiet' }));
    await host.ok('remove', { peerId: guestState.self.id });
    expect(await guest.next('left')).toEqual({ reason: 'removed' });
    expect(await other.next('peerLeft')).toMatchObject({ peerId: guestState.self.id, reason: 'removed' });

    await host.ok('endMeeting', {});
    expect(await other.next('left')).toEqual({ reason: 'meeting-ended' });
    expect(await host.next('left')).toEqual({ reason: 'meeting-ended' });
    await Promise.all([host.closed(), other.closed()]);
    expect(status(m.id)).toBe('ended');
    const people = await t.request('GET', `/api/v1/public/meetings/${m.id}/participants`, { key });
    expect(people.body.data.every((p: { left_at: string | null }) => p.left_at !== null)).toBe(true);
  });

  it('disconnects everyone when the meeting is ended through the API', async () => {
    const m = meeting();
    const { client } = await joined(await credential(m.code));
    const patched = await t.request('PATCH', `/api/v1/public/meetings/${m.id}`, { key, body: { status: 'ended' } });
    expect(patched.status).toBe(200);
    expect(await client.next('left')).toEqual({ reason: 'meeting-ended' });
    expect(await client.closed()).toBe(1000);
  });

  it('stores chat, shows it to the others and to later joiners, and limits its rate', async () => {
    const m = meeting();
    const { client: ann } = await joined(await credential(m.code, { name: 'Ann' }));
    const sent = await ann.ok('sendChat', { text: 'Agenda:\n1. rooms' });
    const { client: bob, state } = await joined(await credential(m.code, { name: 'Bob' }));
    expect(state.chat.map((c) => c.text)).toEqual(['Agenda:\n1. rooms']);
    const answers = await Promise.all(Array.from({ length: 12 }, (_unused, i) => ann.call('sendChat', { text: `spam ${i}` })));
    expect(answers.filter((a) => !a.ok && a.error.code === 'rate_limited').length).toBeGreaterThan(0);
    const log = await t.request('GET', `/api/v1/public/meetings/${m.code}/chat-messages?limit=100`, { key });
    expect(log.status).toBe(200);
    expect(log.body.data.at(-1)).toEqual(sent.message);
    expect(log.body.data).toHaveLength(1 + answers.filter((a) => a.ok).length);
    ann.close();
    bob.close();
  });

  it('lets webinar attendees watch and chat but not send media', async () => {
    const webinar = meeting({ kind: 'webinar', slug: `town-hall-${Date.now()}` });
    const { client, state } = await joined(await credential(webinar.code, { name: 'Attendee' }));
    expect(state.canSendMedia).toBe(false);
    expect(await client.call('createTransport', { direction: 'send' })).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });
    expect(await client.call('createTransport', { direction: 'recv' })).toMatchObject({ ok: true });
    await client.ok('sendChat', { text: 'Question!' });
    client.close();
  });

  it('replaces the older connection of the same person', async () => {
    const m = meeting();
    const cred = await credential(m.code);
    const { client: first } = await joined(cred);
    const { client: second } = await joined(cred);
    expect(await first.next('left')).toEqual({ reason: 'replaced' });
    expect((await second.ok('sendChat', { text: 'back' })).message.sender_identity).toBe(cred.identity);
    second.close();
  });

  it('ends a live meeting once it has been empty for the grace period, and not before', async () => {
    const m = meeting();
    const { client } = await joined(await credential(m.code));
    client.close();
    await client.closed();
    await waitFor(() => t.services.rooms.liveRooms().every((r) => r.meeting.id !== m.id));
    t.clock.advance(59_000);
    t.services.rooms.endEmptyMeetings();
    expect(status(m.id)).toBe('live');
    t.clock.advance(2_000);
    expect(t.services.rooms.endEmptyMeetings()).toBeGreaterThanOrEqual(1);
    expect(status(m.id)).toBe('ended');
  });

  it('moves a room to a new worker when its worker dies, and tells its peers to set up their media again', async () => {
    const m = meeting();
    const { client } = await joined(await credential(m.code));
    await client.ok('createTransport', { direction: 'recv' });
    const before = t.media!.health()[0]!;
    process.kill(before.pid!, 'SIGKILL');
    await client.next('mediaReset');
    const after = t.media!.health()[0]!;
    expect(after).toMatchObject({ alive: true, restarts: before.restarts + 1 });
    expect(after.pid).not.toBe(before.pid);
    expect((await client.ok('createTransport', { direction: 'recv' })).id).toEqual(expect.any(String));
    expect((await t.request('GET', '/healthz')).body.status).toBe('ok');
    client.close();
  });
});

describe('media through the room', () => {
  it('forwards what one peer sends to everyone else, over plain RTP for server-side peers', async () => {
    const m = meeting();
    const { client: ann } = await joined(await credential(m.code, { name: 'Ann' }));
    const { client: bob, state: bobState } = await joined(await credential(m.code, { name: 'Bob' }));
    const room = t.services.rooms.liveRooms().find((r) => r.meeting.id === m.id)!;
    const bobPeer = room.peer(bobState.self.id);
    const receiver = createSocket('udp4');
    receiver.bind(0, '127.0.0.1');
    await once(receiver, 'listening');
    let received = 0;
    receiver.on('message', (packet: Buffer) => (received += packet[1]! === 111 || packet[1]! === 100 ? 1 : 0));
    const recv = await room.media.createPlainTransport(bobPeer.id, 'recv', '127.0.0.1');
    await room.media.connectPlainTransport(bobPeer.id, recv.id, { ip: '127.0.0.1', port: receiver.address().port });

    const annPeer = room.joined().find((p) => p.name === 'Ann')!;
    const send = await room.media.createPlainTransport(annPeer.id, 'send', '127.0.0.1');
    const producerId = await room.produce(annPeer, {
      transportId: send.id,
      kind: 'audio',
      rtpParameters: OPUS_SEND,
      source: 'microphone',
      paused: false,
    });
    const consumer = await bob.next('newConsumer');
    expect(consumer).toMatchObject({ producerId, peerId: annPeer.id, kind: 'audio', source: 'microphone', producerPaused: false });
    await bob.ok('resumeConsumer', { consumerId: consumer.id });

    const sender = createSocket('udp4');
    const packet = Buffer.alloc(172, 0x5a);
    packet[0] = 0x80;
    packet[1] = 111;
    packet.writeUInt32BE(OPUS_SEND.encodings[0]!.ssrc, 8);
    for (let seq = 0; seq < 200 && received < 20; seq++) {
      packet.writeUInt16BE(seq, 2);
      packet.writeUInt32BE(seq * 960, 4);
      sender.send(packet, send.local.port, send.local.ip);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(received).toBeGreaterThanOrEqual(20);

    await ann.ok('closeProducer', { producerId });
    expect(await bob.next('consumerClosed')).toEqual({ consumerId: consumer.id });
    sender.close();
    receiver.close();
    ann.close();
    bob.close();
  });
});

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
