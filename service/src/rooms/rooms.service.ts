import type { RoomSettings } from '../config';
import type { MeetingRow } from '../meetings/meetings.repo';
import type { MeetingsService } from '../meetings/meetings.service';
import type { ParticipantsService } from '../participants/participants.service';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import type { Logger } from '../shared/logger';
import type { Transaction } from '../shared/transaction';
import type { RemovalsRepo } from './removals.repo';
import { Peer, type Admission, type PeerConnection } from './peer';
import { assertAvailable, assertOpenToGuests } from './room-access';
import type { RoomCaptions } from './room-captions.interface';
import type { RoomChat } from './room-chat';
import type { RoomPolls } from './room-polls';
import { RoomBreakouts } from './room-breakouts';
import type { BreakoutsService } from '../breakouts/breakouts.service';
import { RoomModeration } from './room-moderation';
import type { RoomMediaProvider } from './room-media.interface';
import type { LeaveReason, RoomState } from './room.protocol';
import { Room, type PeerInRoom } from './room';
import { recordingKeyOf, type RoomRecordings } from './room-recordings';

/** How long a room whose worker died keeps trying to get new media before giving up. */
const MEDIA_RECOVERY_LIMIT_MS = 30_000;
const MEDIA_RECOVERY_RETRY_MS = 250;

/** What RoomsService works with. */
export interface RoomsServiceDeps {
  meetings: MeetingsService;
  participants: ParticipantsService;
  removals: RemovalsRepo;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  settings: RoomSettings;
  logger: Logger;
  /** The rooms' chat (a joining peer sees its latest messages). */
  chat: RoomChat;
  /** The rooms' recordings (started by hosts or automatically, finished when a room closes). */
  recordings: RoomRecordings;
  /** The rooms' polls. */
  polls: RoomPolls;
  /** The meetings' breakout rooms (stored; the live rooms are RoomBreakouts'). */
  breakouts: BreakoutsService;
}

/**
 * Live rooms: the registry (one room per live meeting, created once even when many join at once),
 * joining and leaving with the meeting's lifecycle and participants recorded, the waiting room and
 * host actions. Who may enter is RoomAccess's; the chat is RoomChat's.
 */
export class RoomsService {
  /** The rooms' chat. */
  readonly chat: RoomChat;
  /** The rooms' recordings (started by hosts or automatically, finished when a room closes). */
  readonly recordings: RoomRecordings;
  /** The rooms' polls. */
  readonly polls: RoomPolls;
  /** Breakout rooms: rooms of a meeting on their own routers, and moving peers between them. */
  readonly breakouts: RoomBreakouts;
  /** Hands, reactions and the hosts' controls (mute, permissions, lock, co-hosts). */
  readonly moderation: RoomModeration;
  private readonly meetings: MeetingsService;
  private readonly participants: ParticipantsService;
  private readonly removals: RemovalsRepo;
  private readonly transaction: Transaction;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;
  private readonly settings: RoomSettings;
  private readonly logger: Logger;
  private readonly rooms = new Map<string, Room>();
  private readonly creating = new Map<string, Promise<Room>>();
  private closing = false;
  private media: RoomMediaProvider | undefined;
  /** Live captions, once given (useCaptions). */
  captions: RoomCaptions | undefined;

  constructor(deps: RoomsServiceDeps) {
    this.meetings = deps.meetings;
    this.participants = deps.participants;
    this.removals = deps.removals;
    this.transaction = deps.transaction;
    this.ids = deps.ids;
    this.clock = deps.clock;
    this.settings = deps.settings;
    this.logger = deps.logger;
    this.chat = deps.chat;
    this.recordings = deps.recordings;
    this.polls = deps.polls;
    this.breakouts = new RoomBreakouts({
      breakouts: deps.breakouts,
      logger: deps.logger,
      newMedia: (meetingId) => this.mediaProvider().create(meetingId),
      mainRoom: (meetingId) => this.roomFor(this.meetings.findAnywhere(meetingId)),
      openMainRoom: (meetingId) => [this.rooms.get(meetingId)].find((room) => room && !room.closed),
      stateFor: (room, peer) => this.stateFor(room, peer),
      recordLeave: (participantId) => this.participants.recordLeave(participantId),
      replace: this.replace,
      recordings: this.recordings,
    });
    this.moderation = new RoomModeration(deps.clock);
    this.meetings.onClosed((meeting) => this.endRoom(meeting.id));
  }

  /** Gives the rooms their media server (the worker pool starts after the services); until then nobody can connect. */
  useMedia(media: RoomMediaProvider): void {
    this.media = media;
    media.onRoutersLost((routerIds) => this.recoverMedia(routerIds));
  }

  /** Gives the rooms live captions (hosts turn them on with setCaptions). */
  useCaptions(captions: RoomCaptions): void {
    this.captions = captions;
  }

  /** Connects an admitted peer to its meeting's room (created on first use); a second connection of the same identity replaces the first. */
  async connect(admission: Admission, connection: PeerConnection): Promise<PeerInRoom> {
    if (this.closing) throw new AppError('conflict', 'The service is stopping; reconnect in a moment');
    const meeting = this.meetings.findAnywhere(admission.meetingId);
    let room = await this.roomFor(meeting);
    const previous = room.peerWithIdentity(admission.identity);
    if (previous) {
      this.replace({ room, peer: previous });
      // The replaced connection was the last one: its leaving closed the room, so the person gets a new one.
      if (room.closed) room = await this.roomFor(meeting);
    }
    const peer = new Peer(this.ids.next('peer'), admission, connection, this.clock.now());
    room.attach(peer);
    return { room, peer };
  }

  /**
   * Enters the room, or the waiting room when no host let the peer in yet and the meeting has one or a
   * host removed this person earlier.
   */
  join({ room, peer }: PeerInRoom, rtpCapabilities: unknown): { status: 'joined'; state: RoomState } | { status: 'waiting' } {
    if (peer.state === 'joined') throw AppError.conflict('You are already in the room');
    if (peer.state === 'waiting') return { status: 'waiting' };
    const meeting = this.meetings.findAnywhere(room.meeting.id);
    assertAvailable(meeting);
    if (!peer.isHost) assertOpenToGuests(meeting, this.clock.now());
    this.moderation.assertMayEnter(room, peer);
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
    room.controls.remember(peer.admission.identity);
    if (goesLive && meeting.transcription_auto === 1) this.recordAutomatically(room);
    if (meeting.captions === 1 && room.joined().length === 1) this.captionAutomatically(room);
    return { status: 'joined', state: this.stateFor(room, peer) };
  }

  /** True when the meeting's live room is locked to `identity` (someone who was not in it): a new credential is refused. */
  lockedFor(meetingId: string, identity: string): boolean {
    const room = this.rooms.get(meetingId);
    return room !== undefined && !room.closed && room.controls.locked && !room.controls.wasMember(identity);
  }

  /** A host lets a waiting peer in: the peer is told and calls `join` again. */
  admit(session: PeerInRoom, peerId: string): void {
    this.assertHost(session.peer);
    const waiting = session.room.peer(peerId);
    if (waiting.state !== 'waiting') throw AppError.conflict(`${waiting.name} is not in the waiting room`);
    if (waiting.removedEarlier) this.removals.lift(session.room.meeting.id, waiting.removalKeys());
    waiting.admitted = true;
    session.room.release(waiting);
    waiting.notify('admitted', {});
  }

  /** A host turns a waiting peer away. */
  deny(session: PeerInRoom, peerId: string): void {
    this.assertHost(session.peer);
    const waiting = session.room.peer(peerId);
    if (waiting.state !== 'waiting') throw AppError.conflict(`${waiting.name} is not in the waiting room`);
    this.leave({ room: session.room, peer: waiting }, 'denied');
  }

  /** A host removes a participant from the meeting: they come back only when a host admits them from the waiting room. */
  remove(session: PeerInRoom, peerId: string): void {
    this.assertHost(session.peer);
    if (peerId === session.peer.id) throw AppError.conflict('Use leave to leave the room yourself');
    const target = session.room.peer(peerId);
    if (target.state === 'waiting') return this.leave({ room: session.room, peer: target }, 'denied');
    this.removals.add(session.room.meeting.id, target.removalKeys(), isoAt(this.clock.now()));
    this.leave({ room: session.room, peer: target }, 'removed');
  }

  /** A host starts recording the room; everyone is told (`recording` notification). */
  startRecording(session: PeerInRoom): { recordingId: string } {
    this.assertHost(session.peer);
    return this.recordings.start(session.room);
  }

  /** A host stops recording the room; resolves once the file is finished (ready or failed). */
  async stopRecording(session: PeerInRoom): Promise<{ recordingId: string; status: 'ready' }> {
    this.assertHost(session.peer);
    const recording = await this.recordings.stop(recordingKeyOf(session.room));
    return { recordingId: recording.id, status: 'ready' };
  }

  /** A host turns live captions on or off; everyone is told (`captions` notification). */
  setCaptions(session: PeerInRoom, on: boolean): { on: boolean } {
    this.assertHost(session.peer);
    if (!this.captions) throw AppError.conflict('Live captions are not available on this service');
    this.captions.set(session.room, on);
    return { on };
  }

  /** A host ends the meeting for everyone. */
  endMeeting(session: PeerInRoom): void {
    this.assertHost(session.peer);
    this.meetings.end(this.meetings.findAnywhere(session.room.meeting.id));
  }

  /** A peer leaves (or its socket closed): recorded, everyone told; an empty room is closed. */
  leave({ room, peer }: PeerInRoom, reason: LeaveReason): void {
    if (peer.participantId) this.participants.recordLeave(peer.participantId);
    room.remove(peer, reason);
    if (room.empty) this.closeRoom(room);
  }

  /** A person's earlier connection, still open, makes way for the new one (main or breakout room): left, told `replaced`. */
  private readonly replace = (earlier: PeerInRoom): void => this.leave(earlier, 'replaced');

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

  /** The live rooms (tests and benchmarks reach a room's media through them). */
  liveRooms(): Room[] {
    return [...this.rooms.values()];
  }

  /** Disconnects everyone (recording that they left) and closes every room; new connections are refused. */
  close(): void {
    this.closing = true;
    this.breakouts.closeAll();
    for (const room of [...this.rooms.values()]) {
      this.recordLeaves(room);
      for (const peer of [...room.joined(), ...room.waiting()]) peer.disconnect();
      this.closeRoom(room);
    }
  }

  private endRoom(meetingId: string): void {
    this.breakouts.meetingClosed(meetingId);
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
      chat: this.chat.history(meeting.id),
      waiting: peer.isHost ? room.waitingList() : [],
      participantCount: room.joined().length,
      captions: this.captions?.isOn(meeting.id) ?? false,
      recording: room.recording,
      ...this.moderation.stateOf(room),
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
    const media = await this.mediaProvider().create(meeting.id, { kind: meeting.kind });
    const room = new Room({ id: meeting.id, code: meeting.code, title: meeting.title, kind: meeting.kind }, media, this.logger);
    this.rooms.set(meeting.id, room);
    return room;
  }

  private mediaProvider(): RoomMediaProvider {
    if (!this.media) throw new AppError('conflict', 'Rooms are not available: this service runs without media workers (SVC_RTC_WORKERS=0)');
    return this.media;
  }

  private closeRoom(room: Room): void {
    if (room.breakout) return this.breakouts.roomEmptied(room);
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

  /** A meeting with `settings.captions`: captions come on when its room's first person joins. */
  private captionAutomatically(room: Room): void {
    try {
      this.captions?.set(room, true);
    } catch (error) {
      this.logger.warn('live captions could not start', { meeting_id: room.meeting.id, error: String(error) });
    }
  }

  private recoverMedia(routerIds: string[]): void {
    const lost = new Set(routerIds);
    for (const room of [...this.rooms.values(), ...this.breakouts.all()]) {
      if (lost.has(room.media.routerId)) void this.moveToNewMedia(room);
    }
  }

  private async moveToNewMedia(room: Room): Promise<void> {
    const giveUpAt = Date.now() + MEDIA_RECOVERY_LIMIT_MS;
    while (!room.closed && !this.closing) {
      try {
        const media = await this.mediaProvider().create(room.meeting.id, { kind: room.meeting.kind });
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

/** Webinar attendees watch and chat; hosts and everyone in a meeting may send media. */
function canSendMedia(room: Room, peer: Peer): boolean {
  return room.meeting.kind === 'meeting' || peer.isHost;
}

/** True when the peer may send media in the room. */
export function maySendMedia(session: PeerInRoom): boolean {
  return canSendMedia(session.room, session.peer);
}
