import type {
  ChatMessage,
  LeaveReason,
  MediaSource,
  PeerInfo,
  RoomNotifications,
  RoomPoll,
  RoomState,
  UnavailableReason,
  WaitingPeer,
} from './protocol';
import type { Caption } from './protocol';

/** Where the session is: connecting, in the waiting room, in the room, reconnecting after a drop, or out. */
export type SessionPhase = 'connecting' | 'waiting' | 'joined' | 'reconnecting' | 'ended';

/** A remote media track arriving or going, by peer and source. */
export interface RemoteTrack {
  consumerId: string;
  peerId: string;
  source: MediaSource;
  kind: 'audio' | 'video';
  track: MediaStreamTrack;
  paused: boolean;
  simulcast: boolean;
}

/** Why the session stopped: a leave reason from the service, or a failure the page must explain. */
export type SessionEnd =
  { kind: 'left'; reason: LeaveReason } | { kind: 'unavailable'; reason: UnavailableReason } | { kind: 'error'; message: string };

/** What the session tells the UI. */
export interface SessionEventMap {
  phase: { phase: SessionPhase };
  /** Entered (or re-entered after a reconnect) the room: the UI renders this state from scratch. */
  joined: { state: RoomState };
  peerJoined: { peer: PeerInfo };
  peerLeft: { peerId: string; reason: LeaveReason };
  peerUpdated: { peer: PeerInfo };
  remoteTrack: RemoteTrack;
  remoteTrackEnded: { consumerId: string };
  remoteTrackPaused: { consumerId: string; paused: boolean };
  /** A local source changed: its track (null when stopped) and whether it is sent muted. */
  local: { source: MediaSource; track: MediaStreamTrack | null; muted: boolean };
  activeSpeaker: { peerId: string | null };
  chat: { message: ChatMessage };
  participantCount: { count: number };
  waiting: { peers: WaitingPeer[] };
  recording: { active: boolean };
  /** Live captions were turned on or off. */
  captions: { active: boolean };
  /** A live caption (while captions are on). */
  caption: Caption;
  /** The breakout rooms changed. */
  breakouts: RoomNotifications['breakouts'];
  /** A host's message to every breakout room. */
  breakoutMessage: RoomNotifications['breakoutMessage'];
  /** This page moved into a breakout room (`room`) or back to the main room (`null`); `reconnected`: back in it after a dropped socket. */
  breakoutMoved: { room: { id: string; name: string } | null; reconnected?: boolean };
  /** A poll opened, its live results changed (hosts), or it closed. */
  poll: { change: 'pollOpened' | 'pollResults' | 'pollClosed'; poll: RoomPoll };
  /** Raised hands changed (first raised first). */
  hands: RoomNotifications['hands'];
  /** Someone reacted (shown on their tile). */
  reaction: RoomNotifications['reaction'];
  /** A host muted this peer or stopped its camera or screen share (the session already applied it). */
  moderated: RoomNotifications['moderated'];
  /** A host asks this peer to unmute. */
  unmuteRequested: RoomNotifications['unmuteRequested'];
  /** What guests may do changed. */
  permissions: RoomNotifications['permissions'];
  /** The meeting was locked or unlocked. */
  locked: RoomNotifications['locked'];
  /** A request failed in a way the user should hear about. */
  notice: { message: string };
  ended: SessionEnd;
}
