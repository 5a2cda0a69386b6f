/**
 * The room's wire protocol, shared by the service (ws/ adapter, rooms/ handlers) and the room page
 * (web/room). Types only, with no imports, so browser code can import it.
 *
 * HTTP, without an API key (rate limited per client address):
 * - `GET /rooms/v1/{code}` -> `RoomInfo`; 404 problem+json for an unknown code.
 * - `POST /rooms/v1/{code}/credentials` with `CredentialRequest` -> 201 `JoinCredential`;
 *   problem+json `meeting_unavailable` (409, with `reason`) for ended or cancelled meetings, and with
 *   `reason: "not_open"`, `starts_at` and `opens_at` for a guest who came before the meeting opened;
 *   `unauthorized` (401) for a bad host/invite token, `forbidden` (403, `reason: "host_link_taken"`) for a
 *   host link another browser redeemed first, `validation_failed` (400) for a bad name or a host link without `holder`.
 *
 * WebSocket `GET /rooms/v1/socket?credential=<credential>` (one per peer). Every frame is one JSON text
 * message: a `ClientRequest` from the page, a `ServerResponse` to it (same `id`), or a
 * `ServerNotificationFrame` pushed by the service. A refused credential gets an `error` notification and
 * the socket closes with code 4401.
 */
import type { BreakoutMethods, BreakoutMove, BreakoutNotifications } from '../breakouts/breakouts.protocol';
import type { PollMethods, PollNotifications } from '../polls/polls.protocol';

/** What the pre-join screen shows about a meeting. */
export interface RoomInfo {
  code: string;
  title: string;
  kind: 'meeting' | 'webinar';
  status: 'scheduled' | 'live' | 'ended' | 'cancelled';
  /** False when nobody can join (ended or cancelled); `unavailable_reason` says why. */
  available: boolean;
  unavailable_reason: 'ended' | 'cancelled' | null;
  waiting_room: boolean;
  /** The scheduled start (ISO 8601 UTC). */
  starts_at: string;
  /** From when guests may join (ISO 8601 UTC): `join_before_start_minutes` before the start. */
  opens_at: string;
  /** True when guests may join now: the meeting is live, or `opens_at` has passed. Hosts may always join. */
  open: boolean;
}

/** Why a meeting cannot be joined; an unknown code is `not_found`. */
export type UnavailableReason = 'not_found' | 'ended' | 'cancelled';

/** The body of `POST /rooms/v1/{code}/credentials`. */
export interface CredentialRequest {
  /** The display name, 1..80 characters on one line; ignored for registrants (their registration fixes it). */
  name?: string;
  /** The `host` query parameter of a host link. */
  host?: string;
  /**
   * With `host`: a random secret the page keeps for this browser (16..128 URL-safe characters). The first
   * browser to redeem a host link owns it; the same browser may redeem it again, any other is refused.
   */
  holder?: string;
  /** The `invite` query parameter of a webinar registrant's link. */
  invite?: string;
  /** An embed token (`svc_et_`): it fixes the guest's name and features. */
  embed?: string;
  /**
   * A named guest's previous credential for this meeting (expired or not, up to 12 hours old): the page sends it
   * when it reconnects, so the guest stays the same person (a locked meeting lets them back in).
   */
  rejoin?: string;
}

/** A short-lived signed credential for the room's WebSocket, and what the page needs to connect. */
export interface JoinCredential {
  credential: string;
  expires_at: string;
  /** Absolute ws:// or wss:// URL of the socket, credential included. */
  socket_url: string;
  role: ParticipantRole;
  name: string;
  identity: string;
  /** STUN/TURN servers for RTCPeerConnection (empty unless TURN is configured). */
  ice_servers: IceServer[];
}

/** One entry of RTCConfiguration.iceServers. */
export interface IceServer {
  urls: string[];
  username?: string;
  credential?: string;
}

/** A role in a room: hosts may end the meeting, admit from the waiting room and remove participants. */
export type ParticipantRole = 'host' | 'guest';

/** What a peer sends: camera and screen share are video, the microphone is audio. */
export type MediaSource = 'microphone' | 'camera' | 'screen';

/** Why a peer left the room; the page says so. */
export type LeaveReason = 'left' | 'removed' | 'meeting-ended' | 'denied' | 'replaced';

/** A peer in the room as everyone sees it. */
export interface PeerInfo {
  id: string;
  name: string;
  role: ParticipantRole;
  identity: string;
  /** Sources this peer currently sends, with whether each is paused (muted). */
  media: Partial<Record<MediaSource, { producerId: string; paused: boolean }>>;
  /** A guest a host made co-host (`role` is then `host`). */
  coHost?: true;
}

/** Someone in the waiting room, as hosts see them. */
export interface WaitingPeer {
  id: string;
  name: string;
  since: string;
  /** A host removed this person from the meeting earlier; admitting them lets them back. */
  removedEarlier: boolean;
}

/** A raised hand: hands are listed in the order they went up (`order` 1 is the first). */
export interface RaisedHand {
  peerId: string;
  name: string;
  raisedAt: string;
  order: number;
}

/** The reactions a peer may send (a fixed set). */
export const REACTIONS = ['👍', '👏', '😂', '❤️', '🎉', '😮'] as const;

/** One of the reactions. */
export type Reaction = (typeof REACTIONS)[number];

/** What guests (everyone but hosts and co-hosts) may do in the room; hosts set it, the service enforces it. */
export interface GuestPermissions {
  /** Unmute their microphone (or start it unmuted). */
  unmute: boolean;
  /** Start their camera. */
  video: boolean;
  /** Share their screen. */
  screen: boolean;
}

/** What a host did to a peer's media: muted its microphone, or stopped its camera or screen share. */
export interface ModerationNotice {
  action: 'muted' | 'stopped';
  source: MediaSource;
  /** The host's name. */
  by: string;
}

/** A chat message as stored and shown. */
export interface ChatMessage {
  id: string;
  meeting_id: string;
  /** The participant id of the sender. */
  participant_id: string;
  sender_name: string;
  sender_identity: string;
  text: string;
  sent_at: string;
}

/** A live caption: what one speaker said, recognized on the service while captions are on. */
export interface Caption {
  /** The speaker's participant; null for a sender that is no participant. */
  participant_id: string | null;
  /** The speaker's display name; null when unknown. */
  speaker: string | null;
  text: string;
  /** True once the utterance ended (the text will not change); false for a partial that a later caption of the same speaker replaces. */
  final: boolean;
  /** When it was recognized (ISO 8601 UTC). */
  at: string;
}

/** ICE/DTLS/SCTP parameters of a server-side WebRTC transport, as mediasoup-client's createSendTransport/createRecvTransport take them. */
export interface TransportOptions {
  id: string;
  iceParameters: unknown;
  iceCandidates: unknown[];
  dtlsParameters: unknown;
}

/** What the page must do with a new consumer: create it on the receive transport, then call `resumeConsumer`. */
export interface ConsumerOptions {
  id: string;
  producerId: string;
  peerId: string;
  kind: 'audio' | 'video';
  source: MediaSource;
  rtpParameters: unknown;
  /** 'simulcast' for cameras: the page picks layers with `setConsumerLayers` by tile size. */
  type: string;
  producerPaused: boolean;
}

/** The state a peer receives once it is in the room. */
export interface RoomState {
  self: PeerInfo;
  peers: PeerInfo[];
  meeting: { id: string; code: string; title: string; kind: 'meeting' | 'webinar' };
  /** False for webinar attendees: they watch and chat but do not send media. */
  canSendMedia: boolean;
  /** The latest chat messages, oldest first. */
  chat: ChatMessage[];
  /** Hosts only: who waits to be admitted. */
  waiting: WaitingPeer[];
  participantCount: number;
  /** True while live captions are on. */
  captions?: boolean;
  recording: boolean;
  /** Raised hands, first raised first. */
  hands: RaisedHand[];
  /** What guests may do (hosts may do everything). */
  permissions: GuestPermissions;
  /** True while the meeting is locked: nobody new joins. */
  locked: boolean;
}

/** Requests the page sends, by method: `data` in, `result` out. */
export interface RoomMethods extends PollMethods, BreakoutMethods {
  /** First call on a socket: the router's RTP capabilities for mediasoup-client's Device.load. */
  getRouterRtpCapabilities: { data: Record<string, never>; result: { rtpCapabilities: unknown } };
  /** Enters the room (or the waiting room); `rtpCapabilities` are the device's, used to consume others' media. */
  /** `breakout`: the person's socket had dropped in a breakout room, and they are back in it (set up media on its router). */
  join: {
    data: { rtpCapabilities: unknown };
    result: { status: 'joined'; state: RoomState; breakout?: BreakoutMove } | { status: 'waiting' };
  };
  createTransport: { data: { direction: 'send' | 'recv' }; result: TransportOptions };
  connectTransport: { data: { transportId: string; dtlsParameters: unknown }; result: Record<string, never> };
  restartIce: { data: { transportId: string }; result: { iceParameters: unknown } };
  produce: {
    data: { transportId: string; kind: 'audio' | 'video'; rtpParameters: unknown; source: MediaSource; paused?: boolean };
    result: { producerId: string };
  };
  closeProducer: { data: { producerId: string }; result: Record<string, never> };
  /** Mute (pause) or unmute (resume) one of the peer's own producers. */
  pauseProducer: { data: { producerId: string }; result: Record<string, never> };
  resumeProducer: { data: { producerId: string }; result: Record<string, never> };
  /** The page's ack of `newConsumer`: media starts flowing. */
  resumeConsumer: { data: { consumerId: string }; result: Record<string, never> };
  /** Stops a consumer's media while its tile is hidden. */
  pauseConsumer: { data: { consumerId: string }; result: Record<string, never> };
  /** The simulcast layer the tile needs (0 = lowest). */
  setConsumerLayers: { data: { consumerId: string; spatialLayer: number; temporalLayer?: number }; result: Record<string, never> };
  sendChat: { data: { text: string }; result: { message: ChatMessage } };
  leave: { data: Record<string, never>; result: Record<string, never> };
  /** Hosts only. */
  admit: { data: { peerId: string }; result: Record<string, never> };
  /** Hosts only: turns a waiting peer away. */
  deny: { data: { peerId: string }; result: Record<string, never> };
  /** Hosts only: removes a peer from the room (reason `removed`). */
  remove: { data: { peerId: string }; result: Record<string, never> };
  /**
   * Hosts only: starts recording the room into a webm file (everyone gets `recording` {active: true});
   * conflict when it already is, or when the service cannot record (no ffmpeg).
   */
  startRecording: { data: Record<string, never>; result: { recordingId: string } };
  /** Hosts only: stops recording; answers once the per-track recording is ready (its composite renders next, then recording.ready), or with the error that failed it. */
  stopRecording: { data: Record<string, never>; result: { recordingId: string; status: 'ready' } };
  /** Hosts only: turns live captions on or off for everyone (everyone gets `captions`); conflict when the service cannot caption. */
  setCaptions: { data: { on: boolean }; result: { on: boolean } };
  /** Hosts only: ends the meeting for everyone (reason `meeting-ended`). */
  endMeeting: { data: Record<string, never>; result: Record<string, never> };
  /** Raises the peer's hand (everyone gets `hands`); idempotent. */
  raiseHand: { data: Record<string, never>; result: { hands: RaisedHand[] } };
  /** Lowers the peer's own hand, or (hosts only) `peerId`'s. */
  lowerHand: { data: { peerId?: string }; result: { hands: RaisedHand[] } };
  /** Hosts only: lowers every hand. */
  lowerAllHands: { data: Record<string, never>; result: { hands: RaisedHand[] } };
  /** Shows a reaction on the peer's tile for everyone (`reaction`); rate limited (`rate_limited`). */
  sendReaction: { data: { emoji: Reaction }; result: Record<string, never> };
  /** Hosts only: mutes one peer's microphone (the service pauses it; the peer gets `moderated`). */
  mutePeer: { data: { peerId: string }; result: Record<string, never> };
  /** Hosts only: mutes everyone but the caller; `muted` is how many microphones it paused. */
  muteAll: { data: Record<string, never>; result: { muted: number } };
  /** Hosts only: asks a peer to unmute (they get `unmuteRequested` and decide); nobody is unmuted remotely. */
  askToUnmute: { data: { peerId: string }; result: Record<string, never> };
  /** Hosts only: stops a peer's camera or screen share (the producer is closed; the peer gets `moderated`). */
  stopMedia: { data: { peerId: string; source: 'camera' | 'screen' }; result: Record<string, never> };
  /** Hosts only: changes what guests may do (everyone gets `permissions`). */
  setPermissions: { data: Partial<GuestPermissions>; result: { permissions: GuestPermissions } };
  /** Hosts only: locks or unlocks the meeting (everyone gets `locked`). */
  setLocked: { data: { locked: boolean }; result: { locked: boolean } };
  /** Hosts only: makes a participant a co-host (host powers in this room; everyone gets `peerUpdated`). */
  makeCoHost: { data: { peerId: string }; result: Record<string, never> };
}

/** A method name of the room protocol. */
export type RoomMethod = keyof RoomMethods;

/** A request frame: `id` is chosen by the page and echoed in the response. */
export interface ClientRequest<M extends RoomMethod = RoomMethod> {
  id: number;
  method: M;
  data?: RoomMethods[M]['data'];
}

/** An error as the socket reports it: the same codes as the REST API's problem+json. */
export interface RoomError {
  code: string;
  message: string;
  /** Why, where the code alone does not say (`meeting_locked` for a forbidden join). */
  reason?: string;
}

/** The answer to one request. */
export type ServerResponse<M extends RoomMethod = RoomMethod> =
  { id: number; ok: true; data: RoomMethods[M]['result'] } | { id: number | null; ok: false; error: RoomError };

/** Notifications the service pushes, by name. */
export interface RoomNotifications extends PollNotifications, BreakoutNotifications {
  peerJoined: { peer: PeerInfo };
  peerLeft: { peerId: string; reason: LeaveReason };
  /** A peer's media changed (a source started, stopped, was muted or unmuted). */
  peerUpdated: { peer: PeerInfo };
  newConsumer: ConsumerOptions;
  consumerClosed: { consumerId: string };
  /** The producer behind a consumer was muted or unmuted. */
  consumerPaused: { consumerId: string };
  consumerResumed: { consumerId: string };
  /** The loudest peer, or null in silence. */
  activeSpeaker: { peerId: string | null };
  chatMessage: { message: ChatMessage };
  participantCount: { count: number };
  /** Hosts only: the waiting room changed. */
  waiting: { peers: WaitingPeer[] };
  /** A waiting peer was let in: call `join` again. */
  admitted: Record<string, never>;
  recording: { active: boolean };
  /** Live captions were turned on or off. */
  captions: { active: boolean };
  /** A live caption (only while captions are on). */
  caption: Caption;
  /** The raised hands changed (first raised first); `lowered`/`raised` name who changed, `by` a host who lowered them. */
  hands: { hands: RaisedHand[]; raised?: string; lowered?: string[]; by?: string };
  /** A peer reacted (the sender gets it too). */
  reaction: { peerId: string; emoji: Reaction };
  /** A host muted this peer's microphone or stopped its camera or screen share. */
  moderated: ModerationNotice;
  /** A host asks this peer to unmute; only the peer can. */
  unmuteRequested: { by: string };
  /** What guests may do changed. */
  permissions: { permissions: GuestPermissions };
  /** The meeting was locked or unlocked. */
  locked: { locked: boolean };
  /**
   * The media server behind the room restarted: close every transport, producer and consumer and
   * set them up again (createTransport, produce); the peer stays in the room.
   */
  mediaReset: Record<string, never>;
  /** The peer is out of the room; the socket closes after this. */
  left: { reason: LeaveReason };
  /** An error outside any request (refused credential, unreadable frame). */
  error: RoomError;
}

/** A notification name of the room protocol. */
export type RoomNotification = keyof RoomNotifications;

/** A notification frame. */
export interface ServerNotificationFrame<N extends RoomNotification = RoomNotification> {
  notification: N;
  data: RoomNotifications[N];
}

/** Reactions a peer may send in a burst, and per how many seconds that allowance refills. */
export const REACTION_LIMIT = { burst: 5, perSeconds: 5 } as const;

/** Limits the service enforces on the socket, published so the page can respect them. */
export const ROOM_LIMITS = {
  /** Bytes of one frame; larger frames get a `payload_too_large` error. */
  maxFrameBytes: 64 * 1024,
  /** Characters of a chat message. */
  maxChatLength: 2_000,
  /** Characters of a display name. */
  maxNameLength: 80,
} as const;
