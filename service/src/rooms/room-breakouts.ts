import type { Assignee, BreakoutSet, BreakoutsService } from '../breakouts/breakouts.service';
import type { BreakoutMove, BreakoutState } from '../breakouts/breakouts.protocol';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import type { Peer } from './peer';
import type { RoomRecordings } from './room-recordings';
import type { RoomMedia } from './room-media.interface';
import type { RoomMethods, RoomState } from './room.protocol';
import { Room, type PeerInRoom } from './room';

/** What RoomBreakouts works with (the RoomsService hands it its media, main rooms and room state). */
export interface RoomBreakoutsDeps {
  breakouts: BreakoutsService;
  logger: Logger;
  /** New media (a router of its own) for a room of the meeting. */
  newMedia(meetingId: string): Promise<RoomMedia>;
  /** The meeting's main room (opened again if it closed meanwhile). */
  mainRoom(meetingId: string): Promise<Room>;
  /** The meeting's main room if it is open. */
  openMainRoom(meetingId: string): Room | undefined;
  /** What a peer gets on entering a room, as `join` answers. */
  stateFor(room: Room, peer: Peer): RoomState;
  /** Records that a participant left the meeting. */
  recordLeave(participantId: string): void;
  /** A person's earlier connection, still open, makes way for their new one (as RoomsService.connect does it in the main room). */
  replace(earlier: PeerInRoom): void;
  /** The rooms' recordings: a breakout room of a recorded meeting is recorded on its own. */
  recordings: RoomRecordings;
}

/**
 * Breakout rooms live: each is a Room of the meeting on its own router. Peers move between the main room
 * and a breakout room on the same socket (their media here closes; the page sets it up on the new router);
 * a closing set sends everyone back once its countdown is over (`runDue`, driven by BreakoutsWorker).
 */
export class RoomBreakouts {
  private readonly rooms = new Map<string, Room>();
  private readonly creating = new Map<string, Promise<Room>>();
  /** The sessions of peers in breakout rooms: the service moves them back when the rooms close. */
  private readonly sessions = new WeakMap<Peer, PeerInRoom>();
  /** Per meeting, the breakout room each person (identity) was last in, kept when their socket drops (`rejoin`). */
  private readonly whereabouts = new Map<string, Map<string, string>>();

  constructor(private readonly deps: RoomBreakoutsDeps) {
    deps.recordings.followBreakouts((meetingId) => this.roomsOf(meetingId));
  }

  /** A host prepares named rooms. */
  create(session: PeerInRoom, names: string[]): { breakouts: BreakoutState } {
    return this.changed(session, this.deps.breakouts.create(session.room.meeting.id, actor(session), names));
  }

  /** A host assigns people (by identity) to rooms, or unassigns them (`room: null`). */
  assign(session: PeerInRoom, assignments: { identity: string; room: string | null }[]): { breakouts: BreakoutState } {
    const people = new Map(this.people(session.room.meeting.id).map(({ peer }) => [peer.admission.identity, assignee(peer)]));
    const errors = assignments.flatMap(({ identity }, i) =>
      people.has(identity) ? [] : [{ param: `assignments/${i}/identity`, message: 'is nobody in this meeting' }],
    );
    if (errors.length) throw AppError.invalid(errors);
    const set = this.deps.breakouts.assign(
      session.room.meeting.id,
      actor(session),
      assignments.map(({ identity, room }) => ({ person: people.get(identity)!, room })),
    );
    return this.changed(session, set);
  }

  /** A host assigns everyone but the hosts at random, evenly. */
  assignRandomly(session: PeerInRoom): { breakouts: BreakoutState } {
    const meetingId = session.room.meeting.id;
    const guests = this.people(meetingId)
      .filter(({ peer }) => !peer.isHost)
      .map(({ peer }) => assignee(peer));
    return this.changed(session, this.deps.breakouts.assignRandomly(meetingId, actor(session), guests));
  }

  /** A host opens the rooms. */
  open(session: PeerInRoom): { breakouts: BreakoutState } {
    return this.changed(session, this.deps.breakouts.open(session.room.meeting.id, actor(session)));
  }

  /** A host sets a timer on the open rooms. */
  setTimer(session: PeerInRoom, minutes: number): { breakouts: BreakoutState } {
    return this.changed(session, this.deps.breakouts.setTimer(session.room.meeting.id, actor(session), minutes));
  }

  /** A host closes the rooms: everyone is back in the main room after the countdown. */
  close(session: PeerInRoom): { breakouts: BreakoutState } {
    return this.changed(session, this.deps.breakouts.close(session.room.meeting.id, actor(session)));
  }

  /** A host's message to everyone, in every room of the meeting. */
  broadcast(session: PeerInRoom, text: string): void {
    if (!session.peer.isHost) throw AppError.missingScope('host', 'Only a host can message every breakout room');
    if (!/\S/.test(text)) throw AppError.invalid([{ param: 'text', message: 'must not be blank' }]);
    for (const { peer } of this.people(session.room.meeting.id)) peer.notify('breakoutMessage', { text, from: session.peer.name });
  }

  /** The breakout rooms as the peer sees them. */
  list(session: PeerInRoom): { breakouts: BreakoutState } {
    const set = this.deps.breakouts.current(session.room.meeting.id);
    return { breakouts: this.view(set, session.room, session.peer) };
  }

  /** Moves the peer into a breakout room (its own; a host may visit any) or back to the main room (`null`). */
  async move(session: PeerInRoom, target: string | null): Promise<BreakoutMove> {
    const meetingId = session.room.meeting.id;
    const { peer } = session;
    if (target === null) {
      if (!session.room.breakout) throw AppError.conflict('You are in the main room');
      return this.transfer(session, await this.deps.mainRoom(meetingId));
    }
    const set = this.deps.breakouts.current(meetingId);
    const room = set.rooms.find((r) => r.id === target);
    if (!room) throw AppError.notFound(`Breakout room ${target}`);
    if (set.status !== 'open') throw AppError.conflict('The breakout rooms are not open');
    if (session.room.breakout?.id === target) throw AppError.conflict('You are in this room already');
    if (!peer.isHost && !room.assigned.some((a) => a.identity === peer.admission.identity)) {
      throw new AppError('forbidden', 'You are assigned to another breakout room');
    }
    return this.transfer(session, await this.roomFor(meetingId, room));
  }

  /**
   * After `join` in the main room: a person whose socket dropped in a breakout room (or who connects again
   * while their old connection is still there) goes back into it, as long as it is open and, for a guest,
   * still theirs. The answer then carries the move, and the page sets up its media on that room's router.
   */
  async rejoin(session: PeerInRoom, joined: JoinResult): Promise<JoinResult> {
    if (session.room.breakout) return joined;
    const meetingId = session.room.meeting.id;
    const { identity } = session.peer.admission;
    const earlier = this.roomsOf(meetingId).flatMap((room) => {
      const peer = room.peerWithIdentity(identity);
      return peer && peer !== session.peer ? [{ room, peer }] : [];
    })[0];
    // Held in the waiting room (or refused): the earlier connection makes way all the same, as in the main room.
    if (joined.status !== 'joined') return this.replaced(earlier, joined);
    const target = earlier?.room.breakout?.id ?? this.whereabouts.get(meetingId)?.get(identity);
    if (!target) return joined;
    const set = this.deps.breakouts.current(meetingId);
    const room = set.rooms.find((r) => r.id === target);
    const theirs = session.peer.isHost || room?.assigned.some((a) => a.identity === identity);
    if (!room || !theirs || (set.status !== 'open' && set.status !== 'closing')) {
      this.whereabouts.get(meetingId)?.delete(identity);
      return this.replaced(earlier, joined);
    }
    return this.enterAgain(session, room, earlier);
  }

  /** Moves on the sets that are due: a timer that ran out starts the countdown; a countdown that is over sends everyone back. */
  async runDue(): Promise<number> {
    const { finish, startClosing } = this.deps.breakouts.due();
    for (const meetingId of startClosing) {
      this.deps.breakouts.startClosing(meetingId);
      this.announce(meetingId);
    }
    for (const meetingId of finish) await this.returnEveryone(meetingId);
    return finish.length + startClosing.length;
  }

  /** The meeting ended: everyone in its breakout rooms is out, and its set is closed. */
  meetingClosed(meetingId: string): void {
    this.whereabouts.delete(meetingId);
    for (const room of this.roomsOf(meetingId)) {
      for (const peer of room.joined()) if (peer.participantId) this.deps.recordLeave(peer.participantId);
      this.deps.recordings.finish(room.breakout!.id);
      room.close('meeting-ended');
      this.rooms.delete(room.breakout!.id);
    }
    this.deps.breakouts.finish(meetingId);
  }

  /** A breakout room emptied (its last peer left the meeting): its media closes. */
  roomEmptied(room: Room): void {
    if (room.breakout) this.deps.recordings.finish(room.breakout.id);
    room.close('left');
    if (room.breakout && this.rooms.get(room.breakout.id) === room) this.rooms.delete(room.breakout.id);
  }

  /** The service stops: everyone in a breakout room is disconnected (recorded as left). */
  closeAll(): void {
    for (const room of [...this.rooms.values()]) {
      for (const peer of room.joined()) {
        if (peer.participantId) this.deps.recordLeave(peer.participantId);
        peer.disconnect();
      }
      this.deps.recordings.finish(room.breakout!.id);
      room.close('left');
    }
    this.rooms.clear();
  }

  /** Every live breakout room (a dead worker's are moved to new media like main rooms). */
  all(): Room[] {
    return [...this.rooms.values()];
  }

  /** The live breakout rooms of a meeting. */
  roomsOf(meetingId: string): Room[] {
    return [...this.rooms.values()].filter((room) => room.meeting.id === meetingId);
  }

  /** Everyone in the meeting's rooms (main and breakout): polls reach them all. */
  everyone(meetingId: string): Peer[] {
    return this.people(meetingId).map(({ peer }) => peer);
  }

  private async enterAgain(session: PeerInRoom, breakout: { id: string; name: string }, earlier?: PeerInRoom): Promise<JoinResult> {
    const room = await this.roomFor(session.room.meeting.id, breakout);
    // The new socket closed too while the room opened: nobody to move.
    if (session.peer.state !== 'joined') {
      if (room.empty) this.roomEmptied(room);
      throw AppError.conflict('You have left the room');
    }
    const move = this.transfer(session, room);
    // The earlier connection of this person (not yet noticed as gone) makes way once the new one is in.
    return this.replaced(earlier, { status: 'joined', state: move.state as RoomState, breakout: move });
  }

  /**
   * Answers `joined` once the person's earlier connection (if any) made way for the new one. `earlier` was found
   * before an await: one that has left since (its socket closed, a host removed it) is not made to leave again; one a
   * host moved to another breakout room meanwhile leaves the room it is in now.
   */
  private replaced<T>(earlier: PeerInRoom | undefined, joined: T): T {
    if (earlier && earlier.peer.state !== 'left') this.deps.replace(this.sessions.get(earlier.peer) ?? earlier);
    return joined;
  }

  private async returnEveryone(meetingId: string): Promise<void> {
    const main = await this.deps.mainRoom(meetingId);
    this.deps.breakouts.finish(meetingId);
    this.whereabouts.delete(meetingId);
    for (const room of this.roomsOf(meetingId)) {
      for (const peer of room.joined()) {
        const session = this.sessions.get(peer);
        if (session) peer.notify('breakoutMoved', this.transfer(session, main));
      }
      this.roomEmptied(room);
    }
    this.announce(meetingId);
  }

  private transfer(session: PeerInRoom, to: Room): BreakoutMove {
    const from = session.room;
    const { peer } = session;
    from.moveOut(peer);
    session.room = to;
    to.attach(peer);
    to.admit(peer);
    if (to.breakout) this.sessions.set(peer, session);
    else this.sessions.delete(peer);
    this.remember(to.meeting.id, peer.admission.identity, to.breakout?.id ?? null);
    if (from.breakout && from.empty) this.roomEmptied(from);
    this.announce(to.meeting.id);
    return { room: to.breakout, rtpCapabilities: to.media.rtpCapabilities, state: this.deps.stateFor(to, peer) };
  }

  private remember(meetingId: string, identity: string, breakoutId: string | null): void {
    let people = this.whereabouts.get(meetingId);
    if (breakoutId === null) return void people?.delete(identity);
    if (!people) this.whereabouts.set(meetingId, (people = new Map()));
    people.set(identity, breakoutId);
  }

  private roomFor(meetingId: string, room: { id: string; name: string }): Promise<Room> {
    const open = this.rooms.get(room.id);
    if (open && !open.closed) return Promise.resolve(open);
    let pending = this.creating.get(room.id);
    if (!pending) {
      pending = this.createRoom(meetingId, room).finally(() => this.creating.delete(room.id));
      this.creating.set(room.id, pending);
    }
    return pending;
  }

  private async createRoom(meetingId: string, breakout: { id: string; name: string }): Promise<Room> {
    const main = await this.deps.mainRoom(meetingId);
    const room = new Room(main.meeting, await this.deps.newMedia(meetingId), this.deps.logger, { id: breakout.id, name: breakout.name });
    this.rooms.set(breakout.id, room);
    this.deps.recordings.breakoutOpened(room);
    return room;
  }

  /** Everyone in the meeting's rooms (main and breakout), with the room they are in. */
  private people(meetingId: string): { peer: Peer; room: Room }[] {
    const rooms = this.roomsOf(meetingId);
    const main = this.deps.openMainRoom(meetingId);
    return [...(main ? [main] : []), ...rooms].flatMap((room) => room.joined().map((peer) => ({ peer, room })));
  }

  private changed(session: PeerInRoom, set: BreakoutSet): { breakouts: BreakoutState } {
    this.announce(session.room.meeting.id, set);
    return { breakouts: this.view(set, session.room, session.peer) };
  }

  /** Tells everyone in the meeting's rooms how the breakout rooms stand. */
  private announce(meetingId: string, set = this.deps.breakouts.current(meetingId)): void {
    for (const { peer, room } of this.people(meetingId)) peer.notify('breakouts', { breakouts: this.view(set, room, peer) });
  }

  private view(set: BreakoutSet, room: Room, peer: Peer): BreakoutState {
    const identity = peer.admission.identity;
    return {
      status: set.status,
      rooms: set.rooms.map((r) => ({
        id: r.id,
        name: r.name,
        assigned: r.assigned.map(({ identity: id, name }) => ({ identity: id, name })),
      })),
      people: peer.isHost
        ? this.people(room.meeting.id).map((p) => ({
            identity: p.peer.admission.identity,
            name: p.peer.name,
            in: p.room.breakout?.id ?? null,
          }))
        : [],
      mine: set.rooms.find((r) => r.assigned.some((a) => a.identity === identity))?.id ?? null,
      current: room.breakout?.id ?? null,
      closes_at: set.closesAt,
      timer_ends_at: set.timerEndsAt,
    };
  }
}

type JoinResult = RoomMethods['join']['result'];

function actor({ peer }: PeerInRoom): { host: boolean } {
  return { host: peer.isHost };
}

function assignee(peer: Peer): Assignee {
  return { identity: peer.admission.identity, participantId: peer.participantId!, name: peer.name };
}
