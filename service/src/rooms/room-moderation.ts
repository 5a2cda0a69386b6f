import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { Peer } from './peer';
import type { PeerInRoom, Room } from './room';
import { meetingLocked } from './room-controls';
import { RoomReactions } from './room-reactions';
import type { GuestPermissions, MediaSource, RaisedHand, RoomState } from './room.protocol';

/** Which permission a guest needs to send a source unpaused. */
const PERMISSION_OF: Record<MediaSource, keyof GuestPermissions> = { microphone: 'unmute', camera: 'video', screen: 'screen' };

/**
 * Hands, reactions and what hosts (and co-hosts) control in a room: muting, stopping a camera or screen
 * share, asking to unmute, guest permissions, the lock and co-hosts. Every refusal is enforced here, whatever
 * the page shows. Lock and permissions live with the room (RoomControls), not the meeting row.
 */
export class RoomModeration {
  /** Reactions (rate limited per peer). */
  readonly reactions: RoomReactions;

  constructor(private readonly clock: Clock) {
    this.reactions = new RoomReactions(() => clock.now());
  }

  /** The room's hands, permissions and lock as a joining peer sees them. */
  stateOf(room: Room): Pick<RoomState, 'hands' | 'permissions' | 'locked'> {
    return { hands: room.hands.list(), permissions: { ...room.controls.permissions }, locked: room.controls.locked };
  }

  /** Raises the peer's hand; everyone gets `hands`. */
  raiseHand({ room, peer }: PeerInRoom): RaisedHand[] {
    if (room.hands.raise(peer.id, peer.name, this.clock.now())) room.broadcast('hands', { hands: room.hands.list(), raised: peer.id });
    return room.hands.list();
  }

  /** Lowers the peer's own hand, or (a host) someone else's. */
  lowerHand({ room, peer }: PeerInRoom, peerId = peer.id): RaisedHand[] {
    if (peerId !== peer.id) {
      assertHost(peer);
      room.peer(peerId);
    }
    if (room.hands.lower(peerId)) {
      room.broadcast('hands', { hands: room.hands.list(), lowered: [peerId], ...(peerId === peer.id ? {} : { by: peer.name }) });
    }
    return room.hands.list();
  }

  /** A host lowers every hand. */
  lowerAllHands({ room, peer }: PeerInRoom): RaisedHand[] {
    assertHost(peer);
    const lowered = room.hands.lowerAll();
    if (lowered.length) room.broadcast('hands', { hands: [], lowered, by: peer.name });
    return [];
  }

  /** A host mutes one peer: its microphone producer is paused and the peer is told. */
  async mutePeer({ room, peer }: PeerInRoom, peerId: string): Promise<void> {
    assertHost(peer);
    const target = this.joinedPeer(room, peerId);
    const mic = target.media.microphone;
    if (!mic) throw AppError.conflict(`${target.name} has no microphone on`);
    await this.mute(room, target, peer.name);
  }

  /** A host mutes everyone but themselves; returns how many microphones it paused. */
  async muteAll({ room, peer }: PeerInRoom): Promise<number> {
    assertHost(peer);
    const targets = room.joined().filter((p) => p !== peer && p.media.microphone && !p.media.microphone.paused);
    await Promise.all(targets.map((target) => this.mute(room, target, peer.name)));
    return targets.length;
  }

  /** A host asks a muted peer to unmute: the peer sees the request and decides. */
  askToUnmute({ room, peer }: PeerInRoom, peerId: string): void {
    assertHost(peer);
    const target = this.joinedPeer(room, peerId);
    if (target.media.microphone && !target.media.microphone.paused) throw AppError.conflict(`${target.name} is not muted`);
    target.notify('unmuteRequested', { by: peer.name });
  }

  /** A host stops a peer's camera or screen share: the producer closes and the peer is told. */
  stopMedia({ room, peer }: PeerInRoom, peerId: string, source: 'camera' | 'screen'): void {
    assertHost(peer);
    const target = this.joinedPeer(room, peerId);
    const entry = target.media[source];
    if (!entry) throw AppError.conflict(`${target.name} sends no ${source === 'camera' ? 'video' : 'screen share'}`);
    room.closeProducer(target, entry.producerId);
    target.notify('moderated', { action: 'stopped', source, by: peer.name });
  }

  /** A host changes what guests may do; everyone gets `permissions`. */
  setPermissions({ room, peer }: PeerInRoom, change: Partial<GuestPermissions>): GuestPermissions {
    assertHost(peer);
    const permissions = { ...room.controls.permissions, ...change };
    room.controls.permissions = permissions;
    room.broadcast('permissions', { permissions });
    return permissions;
  }

  /** A host locks or unlocks the meeting; everyone gets `locked`. */
  setLocked({ room, peer }: PeerInRoom, locked: boolean): boolean {
    assertHost(peer);
    if (room.controls.locked !== locked) {
      room.controls.locked = locked;
      room.broadcast('locked', { locked });
    }
    return locked;
  }

  /** A host makes a guest a co-host: everyone sees their new role, and they see the waiting room. */
  makeCoHost({ room, peer }: PeerInRoom, peerId: string): void {
    assertHost(peer);
    const target = this.joinedPeer(room, peerId);
    if (target.isHost) throw AppError.conflict(`${target.name} is already a host`);
    target.coHost = true;
    room.broadcast('peerUpdated', { peer: target.info() });
    target.notify('waiting', { peers: room.waitingList() });
  }

  /** Refuses a locked room to a guest who was never in it and no host let in from the waiting room. */
  assertMayEnter(room: Room, peer: Peer): void {
    if (!room.controls.locked || peer.isHost || peer.admitted || room.controls.wasMember(peer.admission.identity)) return;
    throw meetingLocked();
  }

  /** Refuses a guest's new producer the room's permissions forbid (a microphone may still start muted). */
  assertMayProduce({ room, peer }: PeerInRoom, source: MediaSource, paused: boolean): void {
    if (source === 'microphone' && paused) return;
    this.assertPermitted(room, peer, source);
  }

  /** Refuses a guest's unmute (or camera resume) the room's permissions forbid. */
  assertMayResume({ room, peer }: PeerInRoom, producerId: string): void {
    const source = peer.sourceOf(producerId);
    if (source) this.assertPermitted(room, peer, source);
  }

  private assertPermitted(room: Room, peer: Peer, source: MediaSource): void {
    const permission = PERMISSION_OF[source];
    if (peer.isHost || room.controls.permissions[permission]) return;
    const what = { unmute: 'unmute', video: 'start their video', screen: 'share their screen' }[permission];
    throw new AppError('forbidden', `A host does not allow guests to ${what} in this meeting`, { reason: `${permission}_not_allowed` });
  }

  private async mute(room: Room, target: Peer, by: string): Promise<void> {
    await room.setProducerPaused(target, target.media.microphone!.producerId, true);
    target.notify('moderated', { action: 'muted', source: 'microphone', by });
  }

  private joinedPeer(room: Room, peerId: string): Peer {
    const target = room.peer(peerId);
    if (target.state !== 'joined') throw AppError.conflict(`${target.name} is not in the room`);
    return target;
  }
}

function assertHost(peer: Peer): void {
  if (!peer.isHost) throw AppError.missingScope('host', 'Only a host can do this');
}
