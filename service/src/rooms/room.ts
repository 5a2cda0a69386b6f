import type { Logger } from '../shared/logger';
import { AppError } from '../shared/errors';
import type { Peer } from './peer';
import { RoomControls } from './room-controls';
import { RaisedHands } from './room-hands';
import type { ProduceInput, RoomMedia } from './room-media.interface';
import type { LeaveReason, MediaSource, RoomNotification, RoomNotifications, WaitingPeer } from './room.protocol';

/** The meeting a room belongs to, as the room needs it. */
export interface RoomMeeting {
  id: string;
  code: string;
  title: string;
  kind: 'meeting' | 'webinar';
}

/** A peer in its room: what the signalling handlers act on. */
export interface PeerInRoom {
  room: Room;
  peer: Peer;
}

/**
 * One meeting's live room: its peers (waiting and joined) and their media on one SFU router. It keeps
 * everyone informed (notifications); persistence and the meeting's lifecycle
 * are the RoomsService's.
 */
export class Room {
  /** Raised hands, in order. */
  readonly hands = new RaisedHands();
  /** Lock and guest permissions (hosts set them). */
  readonly controls = new RoomControls();
  private readonly peers = new Map<string, Peer>();
  private recordingActive = false;
  private isClosed = false;

  constructor(
    readonly meeting: RoomMeeting,
    private mediaServer: RoomMedia,
    private readonly logger: Logger,
    /** Set for a breakout room of the meeting (its own router); null for the main room. */
    readonly breakout: { id: string; name: string } | null = null,
  ) {
    this.listenTo(mediaServer);
  }

  get media(): RoomMedia {
    return this.mediaServer;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get recording(): boolean {
    return this.recordingActive;
  }

  /** Peers in the room (not waiting). */
  joined(): Peer[] {
    return [...this.peers.values()].filter((p) => p.state === 'joined');
  }

  /** Peers in the waiting room, longest waiting first. */
  waiting(): Peer[] {
    return [...this.peers.values()].filter((p) => p.state === 'waiting').sort((a, b) => a.waitingSince! - b.waitingSince!);
  }

  /** The waiting room as hosts see it. */
  waitingList(): WaitingPeer[] {
    return this.waiting().map((p) => ({
      id: p.id,
      name: p.name,
      since: new Date(p.waitingSince!).toISOString(),
      removedEarlier: p.removedEarlier,
    }));
  }

  /** True while nobody is connected (joined or waiting). */
  get empty(): boolean {
    return this.peers.size === 0;
  }

  /** A peer of this room by id, or not_found. */
  peer(peerId: string): Peer {
    const peer = this.peers.get(peerId);
    if (!peer || peer.state === 'left') throw AppError.notFound(`Peer ${peerId}`);
    return peer;
  }

  /** The peer with an identity, if connected (a second tab or a reconnect of the same person). */
  peerWithIdentity(identity: string): Peer | undefined {
    return [...this.peers.values()].find((p) => p.admission.identity === identity && p.state !== 'left');
  }

  /** Adds a connected peer (before it joins or waits). */
  attach(peer: Peer): void {
    this.peers.set(peer.id, peer);
  }

  /** Puts a peer in the waiting room and tells the hosts. */
  wait(peer: Peer, now: number): void {
    peer.state = 'waiting';
    peer.waitingSince ??= now;
    this.notifyHosts();
  }

  /** Takes a peer out of the waiting room without letting it in yet (a host admitted it; it joins next). */
  release(peer: Peer): void {
    peer.state = 'connected';
    peer.waitingSince = null;
    this.notifyHosts();
  }

  /** Lets a peer in: everyone else learns of them, then the peer gets the room's consumers once its receive transport exists. */
  admit(peer: Peer): void {
    peer.state = 'joined';
    this.broadcast('peerJoined', { peer: peer.info() }, peer);
    this.countChanged();
  }

  /** Takes a peer out of the room (or the waiting room), tells it why and closes its socket; idempotent. */
  remove(peer: Peer, reason: LeaveReason): void {
    if (!this.peers.has(peer.id)) return;
    this.peers.delete(peer.id);
    const wasJoined = peer.state === 'joined';
    const wasWaiting = peer.state === 'waiting';
    peer.notify('left', { reason });
    peer.disconnect();
    this.mediaServer.closePeer(peer.id);
    if (wasJoined) {
      this.broadcast('peerLeft', { peerId: peer.id, reason });
      this.countChanged();
      if (this.hands.lower(peer.id)) this.broadcast('hands', { hands: this.hands.list(), lowered: [peer.id] });
    }
    if (wasWaiting) this.notifyHosts();
  }

  /** Takes a joined peer out to another room of the meeting (a breakout room): its media here closes, the others see it go; its socket stays. */
  moveOut(peer: Peer): void {
    if (!this.peers.delete(peer.id)) return;
    this.mediaServer.closePeer(peer.id);
    for (const source of Object.keys(peer.media) as MediaSource[]) delete peer.media[source];
    this.broadcast('peerLeft', { peerId: peer.id, reason: 'left' });
    this.countChanged();
    if (this.hands.lower(peer.id)) this.broadcast('hands', { hands: this.hands.list(), lowered: [peer.id] });
  }

  /** Creates a producer for a joined peer and has every other joined peer consume it. */
  async produce(peer: Peer, input: ProduceInput): Promise<string> {
    if (peer.media[input.source]) throw AppError.conflict(`You already send your ${input.source}; close that producer first`);
    const owner = { participant_id: peer.participantId, name: peer.name };
    const producerId = await this.mediaServer.produce(peer.id, { ...input, owner });
    if (peer.state !== 'joined') {
      this.mediaServer.closeProducer(peer.id, producerId);
      throw AppError.conflict('You are no longer in the room');
    }
    peer.media[input.source] = { producerId, paused: input.paused };
    this.mediaChanged(peer);
    for (const other of this.joined()) {
      if (other !== peer) void this.consume(other, producerId);
    }
    return producerId;
  }

  /** Stops one of a peer's producers (their consumers close and tell their peers). */
  closeProducer(peer: Peer, producerId: string): void {
    const source = this.ownSource(peer, producerId);
    this.mediaServer.closeProducer(peer.id, producerId);
    delete peer.media[source];
    this.mediaChanged(peer);
  }

  /** Mutes or unmutes one of a peer's producers. */
  async setProducerPaused(peer: Peer, producerId: string, paused: boolean): Promise<void> {
    const source = this.ownSource(peer, producerId);
    await this.mediaServer.setProducerPaused(peer.id, producerId, paused);
    const entry = peer.media[source];
    if (!entry || entry.paused === paused) return;
    entry.paused = paused;
    this.mediaChanged(peer);
  }

  /** Has a peer consume everything the others send (after it created its receive transport). */
  async consumeExisting(peer: Peer): Promise<void> {
    const producerIds = this.joined()
      .filter((other) => other !== peer)
      .flatMap((other) => Object.values(other.media).map((entry) => entry!.producerId));
    await Promise.all(producerIds.map((producerId) => this.consume(peer, producerId)));
  }

  /** Tells everyone whether the room is being recorded. */
  setRecording(active: boolean): void {
    if (this.recordingActive === active) return;
    this.recordingActive = active;
    this.broadcast('recording', { active });
  }

  /**
   * Moves the room onto new media after its worker died: every peer's media is gone, so each is told to
   * set up its transports again (`mediaReset`); the peers stay in the room.
   */
  replaceMedia(media: RoomMedia): void {
    this.mediaServer.close();
    this.mediaServer = media;
    this.listenTo(media);
    for (const peer of this.joined()) {
      for (const source of Object.keys(peer.media) as MediaSource[]) delete peer.media[source];
      peer.notify('mediaReset', {});
      this.broadcast('peerUpdated', { peer: peer.info() }, peer);
    }
  }

  /** Sends a notification to every joined peer but `except`. */
  broadcast<N extends RoomNotification>(name: N, data: RoomNotifications[N], except?: Peer): void {
    for (const peer of this.joined()) {
      if (peer !== except) peer.notify(name, data);
    }
  }

  /** Removes everyone with `reason` and closes the media; idempotent. */
  close(reason: LeaveReason): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const peer of [...this.peers.values()]) this.remove(peer, reason);
    this.mediaServer.close();
  }

  private async consume(peer: Peer, producerId: string): Promise<void> {
    try {
      const consumer = await this.mediaServer.consume(peer.id, producerId, peer.rtpCapabilities);
      if (consumer && peer.state === 'joined') peer.notify('newConsumer', consumer);
    } catch (error) {
      this.logger.warn('could not create a consumer', { meeting_id: this.meeting.id, error: (error as Error).message });
    }
  }

  private ownSource(peer: Peer, producerId: string): MediaSource {
    const source = peer.sourceOf(producerId);
    if (!source) throw AppError.notFound(`Producer ${producerId}`);
    return source;
  }

  /** A peer's microphone, camera or screen share was switched on or off (started, stopped, muted, unmuted). */
  private mediaChanged(peer: Peer): void {
    this.broadcast('peerUpdated', { peer: peer.info() });
  }

  private countChanged(): void {
    const count = this.joined().length;
    this.broadcast('participantCount', { count });
  }

  private notifyHosts(): void {
    const peers = this.waitingList();
    for (const host of this.joined()) if (host.isHost) host.notify('waiting', { peers });
  }

  private listenTo(media: RoomMedia): void {
    const current = () => media === this.mediaServer;
    media.on('consumerClosed', (peerId, consumerId) => current() && this.peers.get(peerId)?.notify('consumerClosed', { consumerId }));
    media.on('consumerPaused', (peerId, consumerId) => current() && this.peers.get(peerId)?.notify('consumerPaused', { consumerId }));
    media.on('consumerResumed', (peerId, consumerId) => current() && this.peers.get(peerId)?.notify('consumerResumed', { consumerId }));
    media.on('activeSpeaker', (peerId) => current() && this.broadcast('activeSpeaker', { peerId }));
  }
}
