import { createHmac, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { RoomSettings } from '../config';
import type { Principal } from '../identity/identity.service';
import type { MeetingRow } from '../meetings/meetings.repo';
import { guestsMayJoinFrom, type MeetingsService } from '../meetings/meetings.service';
import type { ParticipantsService } from '../participants/participants.service';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import type { Logger } from '../shared/logger';
import { toPage, type Page, type PageRequest } from '../shared/paging';
import type { SignedTokens } from '../shared/signed-tokens';
import type { Transaction } from '../shared/transaction';
import { objectValidator } from '../shared/validation';
import type { RegistrationsService } from '../webinars/registrations.service';
import type { SearchService } from '../search/search.service';
import { EMBED_FEATURES, type EmbedFeature, type EmbedTokens } from '../embed/embed-tokens';
import type { ChatRepo } from './chat.repo';
import type { RemovalsRepo } from './removals.repo';
import { Peer, type Admission, type PeerConnection } from './peer';
import type { RoomLinks } from './room-links';
import type { RoomMediaProvider } from './room.media';
import {
  ROOM_LIMITS,
  type ChatMessage,
  type CredentialRequest,
  type IceServer,
  type JoinCredential,
  type LeaveReason,
  type RoomInfo,
  type RoomState,
} from './room.protocol';
import { Room, type RoomEvents } from './room';
import type { RoomRecordings } from './room-recordings';

/** A socket credential is good for this long: the page fetches one right before it connects. */
const CREDENTIAL_TTL_MS = 10 * 60 * 1000;
/** TURN credentials outlive a long meeting. */
const TURN_CREDENTIAL_TTL_S = 12 * 60 * 60;
/** Chat messages a joining peer sees. */
const CHAT_HISTORY = 100;
/** How long a room whose worker died keeps trying to get new media before giving up. */
const MEDIA_RECOVERY_LIMIT_MS = 30_000;
const MEDIA_RECOVERY_RETRY_MS = 250;

/** `o`: features an embed token switched off; `e`: the embed token's id. */
type CredentialClaims = { m: string; r: 'host' | 'guest'; n: string; i: string; g: string | null; o?: EmbedFeature[]; e?: string };

const validateCredentialRequest = objectValidator<CredentialRequest>({
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: ROOM_LIMITS.maxNameLength, format: 'single-line', pattern: '\\S' },
    host: { type: 'string', minLength: 1, maxLength: 4096 },
    holder: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
    invite: { type: 'string', minLength: 1, maxLength: 4096 },
    embed: { type: 'string', minLength: 1, maxLength: 4096 },
  },
});

/** A peer's place in a room, for the signalling handlers. */
export interface RoomSession {
  room: Room;
  peer: Peer;
}

/**
 * Live rooms: who may join (credentials), the registry of rooms (one per live meeting, created once
 * even when many join at once), joining and leaving with the meeting's lifecycle and participants
 * recorded, the waiting room, host actions, and the chat log.
 */
export class RoomsService {
  /** Typed room events (joined, left, participant-count, recording, media) of every room. */
  readonly events = new EventEmitter<RoomEvents>();
  private readonly rooms = new Map<string, Room>();
  private readonly creating = new Map<string, Promise<Room>>();
  private closing = false;
  private media: RoomMediaProvider | undefined;
  private turn: { iceServers(): { urls: string[]; secret: string } } | undefined;

  constructor(
    private readonly meetings: MeetingsService,
    private readonly participants: ParticipantsService,
    private readonly registrations: RegistrationsService,
    private readonly links: RoomLinks,
    private readonly embedTokens: EmbedTokens,
    private readonly chat: ChatRepo,
    private readonly removals: RemovalsRepo,
    private readonly search: SearchService,
    private readonly tokens: SignedTokens,
    private readonly transaction: Transaction,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly settings: RoomSettings,
    private readonly logger: Logger,
    /** The rooms' recordings (started by hosts or automatically, finished when a room closes). */
    readonly recordings: RoomRecordings,
  ) {
    meetings.onClosed((meeting) => this.endRoom(meeting.id));
  }

  /** Gives the rooms their media server (the worker pool starts after the services); until then nobody can connect. */
  useMedia(media: RoomMediaProvider): void {
    this.media = media;
    media.onRoutersLost((routerIds) => this.recoverMedia(routerIds));
  }

  /** Gives the rooms the service's own TURN server (SVC_TURN=embedded): its URLs and secret replace the settings' ones. */
  useTurn(turn: { iceServers(): { urls: string[]; secret: string } }): void {
    this.turn = turn;
  }

  /** What the pre-join screen shows for a join code (any organization: the code is the invitation). */
  info(code: string): RoomInfo {
    const row = this.meetings.findByCode(code);
    const unavailable = row.status === 'ended' || row.status === 'cancelled' ? row.status : null;
    return {
      code: row.code,
      title: row.title,
      kind: row.kind,
      status: row.status,
      available: unavailable === null,
      unavailable_reason: unavailable,
      waiting_room: row.waiting_room === 1,
      starts_at: isoAt(row.scheduled_at_ms),
      opens_at: isoAt(guestsMayJoinFrom(row)),
      open: this.openToGuests(row),
    };
  }

  /** A socket credential for the room of `code`: a host (host link), a registrant (invite link) or a named guest. */
  issueCredential(code: string, body: unknown, socketBase: string): JoinCredential {
    const request = validateCredentialRequest(body);
    const meeting = this.meetings.findByCode(code);
    assertAvailable(meeting);
    const { claims, notAfter } = this.claimsFor(meeting, request);
    if (claims.r !== 'host') this.assertOpenToGuests(meeting);
    const expiresAt = Math.min(this.clock.now() + CREDENTIAL_TTL_MS, notAfter);
    const credential = this.tokens.sign('room-credential', claims, expiresAt);
    return {
      credential,
      expires_at: isoAt(Math.floor(expiresAt / 1000) * 1000),
      socket_url: `${socketBase}/rooms/v1/socket?credential=${credential}`,
      role: claims.r,
      name: claims.n,
      identity: claims.i,
      ice_servers: this.iceServers(claims.i),
    };
  }

  /** Who a socket credential admits, to a meeting that can still be joined; unauthorized or meeting_unavailable otherwise. */
  admissionOf(credential: string): Admission {
    const claims = this.tokens.verify<CredentialClaims>('room-credential', credential, this.clock.now());
    assertAvailable(this.meetings.findAnywhere(claims.m));
    return {
      meetingId: claims.m,
      role: claims.r,
      name: claims.n,
      identity: claims.i,
      registrationId: claims.g,
      switchedOff: claims.o ?? [],
      embedTokenId: claims.e ?? null,
    };
  }

  /** Connects an admitted peer to its meeting's room (created on first use); a second connection of the same identity replaces the first. */
  async connect(admission: Admission, connection: PeerConnection): Promise<RoomSession> {
    if (this.closing) throw new AppError('conflict', 'The service is stopping; reconnect in a moment');
    const room = await this.roomFor(this.meetings.findAnywhere(admission.meetingId));
    const previous = room.peerWithIdentity(admission.identity);
    if (previous) this.leave({ room, peer: previous }, 'replaced');
    const peer = new Peer(this.ids.next('peer'), admission, connection, this.clock.now());
    room.attach(peer);
    return { room, peer };
  }

  /**
   * Enters the room, or the waiting room when no host let the peer in yet and the meeting has one or a
   * host removed this person earlier.
   */
  join({ room, peer }: RoomSession, rtpCapabilities: unknown): { status: 'joined'; state: RoomState } | { status: 'waiting' } {
    if (peer.state === 'joined') throw AppError.conflict('You are already in the room');
    if (peer.state === 'waiting') return { status: 'waiting' };
    const meeting = this.meetings.findAnywhere(room.meeting.id);
    assertAvailable(meeting);
    if (!peer.isHost) this.assertOpenToGuests(meeting);
    peer.rtpCapabilities = rtpCapabilities;
    peer.removedEarlier = !peer.admitted && this.removals.anyRemoved(meeting.id, peer.removalKeys());
    if (peer.removedEarlier || (meeting.waiting_room === 1 && !peer.isHost && !peer.admitted)) {
      room.wait(peer, this.clock.now());
      return { status: 'waiting' };
    }
    const goesLive = meeting.status === 'scheduled';
    this.transaction(() => {
      peer.participantId = this.participants.recordJoin(meeting.id, {
        name: peer.name,
        role: peer.role,
        identity: peer.admission.identity,
      }).id;
      if (goesLive) this.meetings.start(meeting);
    });
    room.admit(peer);
    if (goesLive && meeting.transcription_auto === 1) this.recordAutomatically(room);
    return { status: 'joined', state: this.stateFor(room, peer) };
  }

  /** A host lets a waiting peer in: the peer is told and calls `join` again. */
  admit(session: RoomSession, peerId: string): void {
    this.assertHost(session.peer);
    const waiting = session.room.peer(peerId);
    if (waiting.state !== 'waiting') throw AppError.conflict(`${waiting.name} is not in the waiting room`);
    if (waiting.removedEarlier) this.removals.lift(session.room.meeting.id, waiting.removalKeys());
    waiting.admitted = true;
    session.room.release(waiting);
    waiting.notify('admitted', {});
  }

  /** A host turns a waiting peer away. */
  deny(session: RoomSession, peerId: string): void {
    this.assertHost(session.peer);
    const waiting = session.room.peer(peerId);
    if (waiting.state !== 'waiting') throw AppError.conflict(`${waiting.name} is not in the waiting room`);
    this.leave({ room: session.room, peer: waiting }, 'denied');
  }

  /** A host removes a participant from the meeting: they come back only when a host admits them from the waiting room. */
  remove(session: RoomSession, peerId: string): void {
    this.assertHost(session.peer);
    if (peerId === session.peer.id) throw AppError.conflict('Use leave to leave the room yourself');
    const target = session.room.peer(peerId);
    if (target.state === 'waiting') return this.leave({ room: session.room, peer: target }, 'denied');
    this.removals.add(session.room.meeting.id, target.removalKeys(), isoAt(this.clock.now()));
    this.leave({ room: session.room, peer: target }, 'removed');
  }

  /** A host starts recording the room; everyone is told (`recording` notification). */
  startRecording(session: RoomSession): { recordingId: string } {
    this.assertHost(session.peer);
    return this.recordings.start(session.room);
  }

  /** A host stops recording the room; resolves once the file is finished (ready or failed). */
  async stopRecording(session: RoomSession): Promise<{ recordingId: string; status: 'ready' }> {
    this.assertHost(session.peer);
    const recording = await this.recordings.stop(session.room.meeting.id);
    return { recordingId: recording.id, status: 'ready' };
  }

  /** A host ends the meeting for everyone. */
  endMeeting(session: RoomSession): void {
    this.assertHost(session.peer);
    this.meetings.end(this.meetings.findAnywhere(session.room.meeting.id));
  }

  /** A peer leaves (or its socket closed): recorded, everyone told; an empty room is closed. */
  leave({ room, peer }: RoomSession, reason: LeaveReason): void {
    if (peer.participantId) this.participants.recordLeave(peer.participantId);
    room.remove(peer, reason);
    if (room.empty) this.closeRoom(room);
  }

  /** Stores a chat message of a joined peer and shows it to everyone else in the room. */
  sendChat({ room, peer }: RoomSession, text: string): ChatMessage {
    if (peer.state !== 'joined' || !peer.participantId) throw AppError.conflict('Join the room before you chat');
    if (peer.admission.switchedOff.includes('chat')) throw new AppError('forbidden', 'Chat is switched off for this embedded room');
    if (!/\S/.test(text)) throw AppError.invalid([{ param: 'text', message: 'must not be blank' }]);
    if (!peer.takeChatAllowance(this.clock.now())) throw new AppError('rate_limited', 'You are sending messages too fast; wait a moment');
    const message = this.saveChat(room.meeting.id, peer.participantId, peer.name, peer.admission.identity, text);
    room.broadcast('chatMessage', { message }, peer);
    return message;
  }

  /** Stores a chat message of a participant in the meeting's chat log. */
  saveChat(meetingId: string, participantId: string, senderName: string, senderIdentity: string, text: string): ChatMessage {
    const message: ChatMessage = {
      id: this.ids.next('msg'),
      meeting_id: meetingId,
      participant_id: participantId,
      sender_name: senderName,
      sender_identity: senderIdentity,
      text,
      sent_at: isoAt(this.clock.now()),
    };
    const organizationId = this.meetings.findAnywhere(meetingId).organization_id;
    this.transaction(() => {
      this.chat.insert(message);
      this.search.indexChat(message, organizationId);
    });
    return message;
  }

  /** One page of a meeting's chat log, newest first. */
  listChat(principal: Principal, meetingIdOrCode: string, page: PageRequest): Page<ChatMessage> {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    return toPage(this.chat.list(meeting.id, page.after, page.limit + 1), page.limit, (row) => row);
  }

  /**
   * Live meetings that have been empty for the grace period: one that emptied before its scheduled start
   * (an early visit) goes back to `scheduled`, any other ends. Returns how many it changed.
   */
  endEmptyMeetings(): number {
    let ended = 0;
    for (const meeting of this.meetings.idleLive(this.clock.now() - this.settings.emptyGraceSeconds * 1000)) {
      try {
        if (Date.parse(meeting.emptied_at) < meeting.scheduled_at_ms) this.meetings.returnToSchedule(meeting);
        else this.meetings.end(meeting);
        ended++;
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      }
    }
    return ended;
  }

  /** At start-up: nobody is in any room of this process yet, so every open participant row has left. */
  recordEveryoneLeft(): number {
    return this.participants.recordAllLeft();
  }

  /** The live rooms, for health reports and tests. */
  liveRooms(): Room[] {
    return [...this.rooms.values()];
  }

  /** Disconnects everyone (recording that they left) and closes every room; new connections are refused. */
  close(): void {
    this.closing = true;
    for (const room of [...this.rooms.values()]) {
      this.recordLeaves(room);
      for (const peer of [...room.joined(), ...room.waiting()]) peer.disconnect();
      this.closeRoom(room);
    }
  }

  private endRoom(meetingId: string): void {
    const room = this.rooms.get(meetingId);
    if (!room) return;
    this.recordings.finish(meetingId);
    this.recordLeaves(room);
    room.close('meeting-ended');
    this.closeRoom(room);
  }

  private recordLeaves(room: Room): void {
    for (const peer of room.joined()) if (peer.participantId) this.participants.recordLeave(peer.participantId);
  }

  /** Guests may join a live meeting, or a scheduled one from `join_before_start_minutes` before its start. */
  private openToGuests(meeting: MeetingRow): boolean {
    return meeting.status === 'live' || (meeting.status === 'scheduled' && this.clock.now() >= guestsMayJoinFrom(meeting));
  }

  private assertOpenToGuests(meeting: MeetingRow): void {
    if (this.openToGuests(meeting)) return;
    throw new AppError('meeting_unavailable', `Meeting ${meeting.code} has not opened yet; it starts at ${meeting.scheduled_at}`, {
      reason: 'not_open',
      starts_at: isoAt(meeting.scheduled_at_ms),
      opens_at: isoAt(guestsMayJoinFrom(meeting)),
    });
  }

  /** The credential's claims, and the latest time it may expire (an embed token's own expiry). */
  private claimsFor(meeting: MeetingRow, request: CredentialRequest): { claims: CredentialClaims; notAfter: number } {
    if (request.host) {
      const grant = this.links.grantOf(request.host);
      if (grant.meetingId !== meeting.id || grant.role !== 'host')
        throw new AppError('unauthorized', 'This host link is for another meeting');
      if (!request.holder) {
        throw AppError.invalid([
          { param: 'holder', message: 'is required with a host link: a secret that stays in this browser (the room page makes one)' },
        ]);
      }
      this.links.redeemHostLink(grant, request.holder);
      return { claims: { m: meeting.id, r: 'host', n: requiredName(request), i: grant.identity, g: null }, notAfter: Infinity };
    }
    if (request.invite) {
      const grant = this.links.grantOf(request.invite);
      if (grant.meetingId !== meeting.id || grant.role !== 'guest')
        throw new AppError('unauthorized', 'This invitation is for another meeting');
      const registration = this.registrations.findForWebinar(meeting.id, grant.registrationId);
      const name = registration.name.slice(0, ROOM_LIMITS.maxNameLength);
      return { claims: { m: meeting.id, r: 'guest', n: name, i: grant.identity, g: registration.id }, notAfter: Infinity };
    }
    if (request.embed) {
      // The token fixes the name and features: whatever else the page sends is ignored.
      const grant = this.embedTokens.grantOf(request.embed);
      if (grant.meetingId !== meeting.id) throw new AppError('unauthorized', 'This embed token is for another meeting');
      const switchedOff = EMBED_FEATURES.filter((feature) => !grant.features[feature]);
      const identity = `embed-${randomBytes(8).toString('hex')}`;
      const claims = { m: meeting.id, r: 'guest' as const, n: grant.name, i: identity, g: null, o: switchedOff, e: grant.id };
      return { claims, notAfter: grant.expiresAt };
    }
    return {
      claims: { m: meeting.id, r: 'guest', n: requiredName(request), i: `guest-${randomBytes(8).toString('hex')}`, g: null },
      notAfter: Infinity,
    };
  }

  private iceServers(identity: string): IceServer[] {
    const { urls: turnUrls, secret: turnSecret } = this.turn?.iceServers() ?? {
      urls: this.settings.turnUrls,
      secret: this.settings.turnSecret,
    };
    if (turnUrls.length === 0) return [];
    if (!turnSecret) return [{ urls: turnUrls }];
    const username = `${Math.floor(this.clock.now() / 1000) + TURN_CREDENTIAL_TTL_S}:${identity}`;
    return [{ urls: turnUrls, username, credential: createHmac('sha1', turnSecret).update(username).digest('base64') }];
  }

  private stateFor(room: Room, peer: Peer): RoomState {
    const meeting = room.meeting;
    return {
      self: peer.info(),
      peers: room
        .joined()
        .filter((p) => p !== peer)
        .map((p) => p.info()),
      meeting: { id: meeting.id, code: meeting.code, title: meeting.title, kind: meeting.kind },
      canSendMedia: canSendMedia(room, peer),
      chat: this.chat.latest(meeting.id, CHAT_HISTORY),
      waiting: peer.isHost ? room.waitingList() : [],
      participantCount: room.joined().length,
      recording: room.recording,
    };
  }

  private assertHost(peer: Peer): void {
    if (!peer.isHost) throw AppError.missingScope('host', 'Only a host can do this');
    if (peer.state !== 'joined') throw AppError.conflict('Join the room first');
  }

  private roomFor(meeting: MeetingRow): Promise<Room> {
    const open = this.rooms.get(meeting.id);
    if (open && !open.closed) return Promise.resolve(open);
    // One creation per meeting at a time: peers arriving together share the same new room.
    let pending = this.creating.get(meeting.id);
    if (!pending) {
      pending = this.createRoom(meeting).finally(() => this.creating.delete(meeting.id));
      this.creating.set(meeting.id, pending);
    }
    return pending;
  }

  private async createRoom(meeting: MeetingRow): Promise<Room> {
    const media = await this.mediaProvider().create(meeting.id);
    const room = new Room(
      { id: meeting.id, code: meeting.code, title: meeting.title, kind: meeting.kind },
      media,
      this.events,
      this.logger,
    );
    this.rooms.set(meeting.id, room);
    return room;
  }

  private mediaProvider(): RoomMediaProvider {
    if (!this.media) throw new AppError('conflict', 'Rooms are not available: this service runs without media workers (SVC_RTC_WORKERS=0)');
    return this.media;
  }

  private closeRoom(room: Room): void {
    this.recordings.finish(room.meeting.id);
    room.close('left');
    if (this.rooms.get(room.meeting.id) === room) this.rooms.delete(room.meeting.id);
  }

  private recordAutomatically(room: Room): void {
    try {
      this.recordings.start(room);
    } catch (error) {
      this.logger.warn('automatic recording could not start', { meeting_id: room.meeting.id, error: String(error) });
    }
  }

  private recoverMedia(routerIds: string[]): void {
    const lost = new Set(routerIds);
    for (const room of this.rooms.values()) {
      if (lost.has(room.media.routerId)) void this.moveToNewMedia(room);
    }
  }

  private async moveToNewMedia(room: Room): Promise<void> {
    const giveUpAt = Date.now() + MEDIA_RECOVERY_LIMIT_MS;
    while (!room.closed && !this.closing) {
      try {
        const media = await this.mediaProvider().create(room.meeting.id);
        if (room.closed) return media.close();
        room.replaceMedia(media);
        this.logger.info('room moved to a new media worker', { meeting_id: room.meeting.id, peers: room.joined().length });
        return;
      } catch (error) {
        if (Date.now() >= giveUpAt) {
          this.logger.error('room lost its media and no worker took it over', { meeting_id: room.meeting.id, error: String(error) });
          return;
        }
        // No worker runs yet (the pool is replacing the dead one): try again shortly.
        await new Promise((resolve) => setTimeout(resolve, MEDIA_RECOVERY_RETRY_MS));
      }
    }
  }
}

function assertAvailable(meeting: MeetingRow): void {
  if (meeting.status === 'ended' || meeting.status === 'cancelled') {
    throw new AppError('meeting_unavailable', `Meeting ${meeting.code} is ${meeting.status}`, { reason: meeting.status });
  }
}

function requiredName(request: CredentialRequest): string {
  if (!request.name) throw AppError.invalid([{ param: 'name', message: 'is required: the name others see' }]);
  return request.name.trim();
}

/** Webinar attendees watch and chat; hosts and everyone in a meeting may send media. */
function canSendMedia(room: Room, peer: Peer): boolean {
  return room.meeting.kind === 'meeting' || peer.isHost;
}

/** True when the peer may send media in the room. */
export function maySendMedia(session: RoomSession): boolean {
  return canSendMedia(session.room, session.peer);
}
