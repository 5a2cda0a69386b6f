import type { EmbedFeature } from './embed-tokens';
import { TokenBucket } from '../shared/token-bucket';
import type { MediaSource, ParticipantRole, PeerInfo, RoomNotification, RoomNotifications } from './room.protocol';

/** Who a verified join credential says the peer is. */
export interface Admission {
  meetingId: string;
  role: ParticipantRole;
  name: string;
  identity: string;
  /** Set for a webinar registrant. */
  registrationId: string | null;
  /** Parts of the room an embed token switched off for this peer (empty otherwise). */
  switchedOff: readonly EmbedFeature[];
  /** Set for a guest of an embed token: the same for every credential that token gives. */
  embedTokenId: string | null;
}

/** The adapter side of a peer: how the room reaches its socket. */
export interface PeerConnection {
  notify<N extends RoomNotification>(name: N, data: RoomNotifications[N]): void;
  /** Closes the socket (after the notifications already sent). */
  close(): void;
}

/** Where a peer is: connected (socket open), in the waiting room, in the room, or gone. */
export type PeerState = 'connected' | 'waiting' | 'joined' | 'left';

/** Chat messages a peer may send in a burst, and how fast the allowance refills. */
const CHAT_BURST = 10;
const CHAT_REFILL_PER_SECOND = 1;

/** One person's connection to a room: identity, state, what they send, and their socket. */
export class Peer {
  state: PeerState = 'connected';
  /** The participants row, once joined. */
  participantId: string | null = null;
  /** The device's RTP capabilities from `join`, used to consume others' media. */
  rtpCapabilities: unknown = null;
  /** A host let the peer in from the waiting room. */
  admitted = false;
  /** A host removed this person from the meeting earlier; they wait until a host lets them back. */
  removedEarlier = false;
  /** A host made this guest a co-host: host powers in this room (not recorded beyond it). */
  coHost = false;
  /** When the peer entered the waiting room (epoch ms). */
  waitingSince: number | null = null;
  readonly media: PeerInfo['media'] = {};
  private readonly chatAllowance: TokenBucket;

  constructor(
    readonly id: string,
    readonly admission: Admission,
    private readonly connection: PeerConnection,
    now: number,
  ) {
    this.chatAllowance = new TokenBucket(CHAT_BURST, CHAT_REFILL_PER_SECOND, now);
  }

  get name(): string {
    return this.admission.name;
  }

  /** The peer's role in the room: a co-host is a host. */
  get role(): ParticipantRole {
    return this.coHost ? 'host' : this.admission.role;
  }

  get isHost(): boolean {
    return this.role === 'host';
  }

  /**
   * What a removal of this person is recorded under: their identity, and the webinar registration or embed
   * token their credential came from (a new credential from the same personal link or token is the same person).
   */
  removalKeys(): string[] {
    const { identity, registrationId, embedTokenId } = this.admission;
    return [
      `identity:${identity}`,
      ...(registrationId ? [`registration:${registrationId}`] : []),
      ...(embedTokenId ? [`embed:${embedTokenId}`] : []),
    ];
  }

  /** The peer as everyone in the room sees it. */
  info(): PeerInfo {
    return {
      id: this.id,
      name: this.name,
      role: this.role,
      identity: this.admission.identity,
      media: { ...this.media },
      ...(this.coHost ? { coHost: true } : {}),
    };
  }

  /** The source a producer of this peer sends, if it is one of theirs. */
  sourceOf(producerId: string): MediaSource | undefined {
    return (Object.keys(this.media) as MediaSource[]).find((source) => this.media[source]?.producerId === producerId);
  }

  notify<N extends RoomNotification>(name: N, data: RoomNotifications[N]): void {
    if (this.state !== 'left') this.connection.notify(name, data);
  }

  /** Takes one chat message from the peer's allowance; false when they are sending too fast. */
  takeChatAllowance(now: number): boolean {
    return this.chatAllowance.take(now);
  }

  /** Marks the peer gone and closes its socket; idempotent. */
  disconnect(): void {
    if (this.state === 'left') return;
    this.state = 'left';
    this.connection.close();
  }
}
