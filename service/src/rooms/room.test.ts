import { FakeRoomMedia, fakeRtpCapabilities } from '@svc/service/testing';
import { createLogger } from '../shared/logger';
import { Peer, type Admission } from './peer';
import { Room } from './room';
import type { RoomNotification, RoomNotifications } from './room.protocol';

/** A peer whose socket records what it is told. */
class RecordingPeer extends Peer {
  private readonly socket: { told: { name: RoomNotification; data: unknown }[]; closed: boolean };

  constructor(id: string, admission: Partial<Admission> = {}) {
    const socket = { told: [] as { name: RoomNotification; data: unknown }[], closed: false };
    const connection = {
      notify: <N extends RoomNotification>(name: N, data: RoomNotifications[N]) => void socket.told.push({ name, data }),
      close: () => void (socket.closed = true),
    };
    const base: Admission = {
      meetingId: 'mtg',
      role: 'guest',
      name: id,
      identity: `identity-${id}`,
      registrationId: null,
      switchedOff: [],
      embedTokenId: null,
    };
    super(id, { ...base, ...admission }, connection, 0);
    this.socket = socket;
    this.rtpCapabilities = fakeRtpCapabilities();
  }

  get told(): { name: RoomNotification; data: unknown }[] {
    return this.socket.told;
  }

  get socketClosed(): boolean {
    return this.socket.closed;
  }

  /** The data of the notifications named `name`, in order. */
  seen<N extends RoomNotification>(name: N): RoomNotifications[N][] {
    return this.told.filter((n) => n.name === name).map((n) => n.data as RoomNotifications[N]);
  }
}

const MEETING = { id: 'mtg', code: 'abc-defg-hij', title: 'Standup', kind: 'meeting' as const };

function roomWith(...peers: RecordingPeer[]): { room: Room; media: FakeRoomMedia } {
  const media = new FakeRoomMedia('router-1');
  const room = new Room(MEETING, media, createLogger('silent'));
  for (const peer of peers) {
    room.attach(peer);
    room.admit(peer);
  }
  return { room, media };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

async function sendTransport(room: Room, peer: Peer): Promise<string> {
  return (await room.media.createTransport(peer.id, 'send')).id;
}

/** `peer` sends its microphone, unpaused, on a new send transport; resolves to the producer id. */
async function produceMicrophone(room: Room, peer: Peer): Promise<string> {
  const input = {
    transportId: await sendTransport(room, peer),
    kind: 'audio',
    rtpParameters: {},
    source: 'microphone',
    paused: false,
  } as const;
  return room.produce(peer, input);
}

describe('Room on fake media', () => {
  it('tells the others who joins and leaves, with the count, and closes the leaver’s socket and media', async () => {
    const ann = new RecordingPeer('ann');
    const bob = new RecordingPeer('bob');
    const { room, media } = roomWith(ann);
    room.attach(bob);
    room.admit(bob);
    expect(ann.seen('peerJoined')).toEqual([{ peer: bob.info() }]);
    expect(ann.seen('participantCount')).toEqual([{ count: 1 }, { count: 2 }]);
    expect(bob.seen('peerJoined')).toEqual([]);
    expect(room.joined()).toEqual([ann, bob]);

    await room.media.createTransport(bob.id, 'recv');
    expect(media.objectsOf(bob.id).transports).toBe(1);
    room.remove(bob, 'removed');
    expect(bob.seen('left')).toEqual([{ reason: 'removed' }]);
    expect(bob.socketClosed).toBe(true);
    expect(bob.state).toBe('left');
    expect(media.objectsOf(bob.id).transports).toBe(0);
    expect(ann.seen('peerLeft')).toEqual([{ peerId: bob.id, reason: 'removed' }]);
    expect(ann.seen('participantCount').at(-1)).toEqual({ count: 1 });
    room.remove(bob, 'left');
    expect(bob.seen('left')).toHaveLength(1);
    expect(() => room.peer(bob.id)).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('has every other joined peer consume a new producer (paused), and a later joiner consume what is already sent', async () => {
    const ann = new RecordingPeer('ann');
    const bob = new RecordingPeer('bob');
    const deaf = new RecordingPeer('deaf');
    const { room, media } = roomWith(ann, bob, deaf);
    await room.media.createTransport(bob.id, 'recv');
    const producerId = await produceMicrophone(room, ann);
    await flush();
    const [consumer] = bob.seen('newConsumer');
    expect(consumer).toMatchObject({ producerId, peerId: ann.id, kind: 'audio', source: 'microphone', producerPaused: false });
    expect(media.consumerPaused(consumer!.id)).toBe(true);
    // No receive transport yet: nothing to consume into, and no error either.
    expect(deaf.seen('newConsumer')).toEqual([]);
    expect(ann.seen('newConsumer')).toEqual([]);
    expect(ann.media.microphone).toEqual({ producerId, paused: false });
    expect(bob.seen('peerUpdated').at(-1)).toEqual({ peer: ann.info() });

    const carl = new RecordingPeer('carl');
    room.attach(carl);
    room.admit(carl);
    await room.media.createTransport(carl.id, 'recv');
    await room.consumeExisting(carl);
    expect(carl.seen('newConsumer')).toEqual([expect.objectContaining({ producerId, peerId: ann.id })]);
  });

  it('refuses a second producer of the same source, and another peer’s producer as unknown', async () => {
    const ann = new RecordingPeer('ann');
    const bob = new RecordingPeer('bob');
    const { room } = roomWith(ann, bob);
    const transportId = await sendTransport(room, ann);
    const input = { transportId, kind: 'video' as const, rtpParameters: {}, source: 'camera' as const, paused: false };
    const producerId = await room.produce(ann, input);
    await expect(room.produce(ann, input)).rejects.toMatchObject({ code: 'conflict' });
    expect(() => room.closeProducer(bob, producerId)).toThrow(expect.objectContaining({ code: 'not_found' }));
    await expect(room.setProducerPaused(bob, producerId, true)).rejects.toMatchObject({ code: 'not_found' });
    expect(ann.media.camera).toEqual({ producerId, paused: false });
  });

  it('passes pauses and closes of a producer to its consumers, and announces each change once', async () => {
    const ann = new RecordingPeer('ann');
    const bob = new RecordingPeer('bob');
    const { room } = roomWith(ann, bob);
    await room.media.createTransport(bob.id, 'recv');
    const producerId = await produceMicrophone(room, ann);
    await flush();
    const consumerId = bob.seen('newConsumer')[0]!.id;
    const updates = () => bob.seen('peerUpdated').length;
    const before = updates();
    await room.setProducerPaused(ann, producerId, true);
    await room.setProducerPaused(ann, producerId, true);
    expect(bob.seen('consumerPaused')).toEqual([{ consumerId }]);
    expect(updates()).toBe(before + 1);
    expect(ann.media.microphone).toEqual({ producerId, paused: true });
    await room.setProducerPaused(ann, producerId, false);
    expect(bob.seen('consumerResumed')).toEqual([{ consumerId }]);
    room.closeProducer(ann, producerId);
    expect(bob.seen('consumerClosed')).toEqual([{ consumerId }]);
    expect(ann.media.microphone).toBeUndefined();
    expect(bob.seen('peerUpdated').at(-1)).toEqual({ peer: ann.info() });
  });

  it('closes the consumers of a leaving peer’s producers', async () => {
    const ann = new RecordingPeer('ann');
    const bob = new RecordingPeer('bob');
    const { room } = roomWith(ann, bob);
    await room.media.createTransport(bob.id, 'recv');
    await produceMicrophone(room, ann);
    await flush();
    const consumerId = bob.seen('newConsumer')[0]!.id;
    room.remove(ann, 'left');
    expect(bob.seen('consumerClosed')).toEqual([{ consumerId }]);
  });

  it('keeps waiting peers apart and tells only the hosts about the waiting room', () => {
    const host = new RecordingPeer('host', { role: 'host' });
    const guest = new RecordingPeer('guest');
    const { room } = roomWith(host, guest);
    const early = new RecordingPeer('early');
    const late = new RecordingPeer('late');
    room.attach(early);
    room.attach(late);
    room.wait(late, 2_000);
    room.wait(early, 1_000);
    expect(room.waiting()).toEqual([early, late]);
    expect(host.seen('waiting').at(-1)).toEqual({ peers: room.waitingList() });
    expect(room.waitingList().map((p) => p.name)).toEqual(['early', 'late']);
    expect(guest.seen('waiting')).toEqual([]);
    expect(guest.seen('peerJoined')).toEqual([]);
    room.release(early);
    expect(early.state).toBe('connected');
    expect(host.seen('waiting').at(-1)).toEqual({ peers: [expect.objectContaining({ id: late.id })] });
    room.remove(late, 'denied');
    expect(late.seen('left')).toEqual([{ reason: 'denied' }]);
    expect(host.seen('waiting').at(-1)).toEqual({ peers: [] });
    expect(guest.seen('peerLeft')).toEqual([]);
  });

  it('closes in a cascade: everyone (waiting too) is told why and disconnected, then the media closes; closing again does nothing', () => {
    const ann = new RecordingPeer('ann');
    const bob = new RecordingPeer('bob');
    const { room, media } = roomWith(ann, bob);
    const waiting = new RecordingPeer('waiting');
    room.attach(waiting);
    room.wait(waiting, 0);
    room.close('meeting-ended');
    for (const peer of [ann, bob, waiting]) {
      expect(peer.seen('left')).toEqual([{ reason: 'meeting-ended' }]);
      expect(peer.socketClosed).toBe(true);
    }
    expect(media.closed).toBe(true);
    expect(room.closed).toBe(true);
    expect(room.empty).toBe(true);
    const told = ann.told.length;
    room.close('left');
    expect(ann.told).toHaveLength(told);
  });

  it('broadcasts recording changes once and the active speaker', () => {
    const ann = new RecordingPeer('ann');
    const bob = new RecordingPeer('bob');
    const { room, media } = roomWith(ann, bob);
    room.setRecording(true);
    room.setRecording(true);
    expect(room.recording).toBe(true);
    expect(bob.seen('recording')).toEqual([{ active: true }]);
    media.emit('activeSpeaker', ann.id);
    expect(bob.seen('activeSpeaker')).toEqual([{ peerId: ann.id }]);
    expect(ann.seen('activeSpeaker')).toEqual([{ peerId: ann.id }]);
  });

  it('moves onto new media: peers keep their place, forget their media and are told to set it up again; the old media is ignored', async () => {
    const ann = new RecordingPeer('ann');
    const bob = new RecordingPeer('bob');
    const { room, media: old } = roomWith(ann, bob);
    await room.media.createTransport(bob.id, 'recv');
    await produceMicrophone(room, ann);
    const replacement = new FakeRoomMedia('router-2');
    room.replaceMedia(replacement);
    expect(old.closed).toBe(true);
    expect(room.media).toBe(replacement);
    expect(ann.media).toEqual({});
    expect(ann.seen('mediaReset')).toEqual([{}]);
    expect(bob.seen('mediaReset')).toEqual([{}]);
    expect(bob.seen('peerUpdated').at(-1)).toEqual({ peer: ann.info() });
    expect(room.joined()).toEqual([ann, bob]);
    old.emit('activeSpeaker', ann.id);
    expect(bob.seen('activeSpeaker')).toEqual([]);
    replacement.emit('activeSpeaker', bob.id);
    expect(ann.seen('activeSpeaker')).toEqual([{ peerId: bob.id }]);
  });
});
