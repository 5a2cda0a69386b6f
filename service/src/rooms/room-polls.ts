import type { PollActor, PollsService } from '../polls/polls.service';
import type { NewPoll, Poll, RoomPoll } from '../polls/polls.protocol';
import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import { TokenBucket } from '../shared/token-bucket';
import type { Peer } from './peer';
import type { PeerInRoom } from './room';

/** Poll actions (create, vote, close) a peer may take in a burst, and how fast the allowance refills. */
const POLL_BURST = 10;
const POLL_REFILL_PER_SECOND = 2;

/**
 * Polls in a meeting's rooms: the PollsService stores and counts; this tells the people. Polls are
 * meeting-wide (as in Zoom): `everyone` is who is in the meeting's main room and its breakout rooms, so a
 * poll a host opens anywhere reaches every room; everyone hears of a new poll and of its results once
 * closed; hosts see the results live after every vote, wherever they are.
 */
export class RoomPolls {
  private readonly allowances = new WeakMap<Peer, TokenBucket>();

  constructor(
    private readonly polls: PollsService,
    private readonly clock: Clock,
  ) {}

  /** A host opens a poll for the whole meeting (every room). */
  create(session: PeerInRoom, input: NewPoll, everyone: Peer[]): { poll: RoomPoll } {
    const poll = this.polls.create(session.room.meeting.id, this.actor(session), input);
    this.tell(everyone, 'pollOpened', poll, session.peer);
    return { poll: this.view(poll, session.peer) };
  }

  /** A peer votes; the hosts (in any room of the meeting) see the new results. */
  vote(session: PeerInRoom, pollId: string, optionIds: string[], everyone: Peer[]): { poll: RoomPoll } {
    const poll = this.polls.vote(session.room.meeting.id, pollId, this.actor(session), optionIds);
    for (const host of everyone) if (host.isHost && host !== session.peer) host.notify('pollResults', { poll: this.view(poll, host) });
    return { poll: this.view(poll, session.peer) };
  }

  /** A host closes a poll: everyone, in every room, sees the results. */
  close(session: PeerInRoom, pollId: string, everyone: Peer[]): { poll: RoomPoll } {
    const poll = this.polls.close(session.room.meeting.id, pollId, this.actor(session));
    this.tell(everyone, 'pollClosed', poll, session.peer);
    return { poll: this.view(poll, session.peer) };
  }

  /** The meeting's polls as the peer sees them. */
  list({ room, peer }: PeerInRoom): { polls: RoomPoll[] } {
    return { polls: this.polls.roomView(room.meeting.id, { identity: peer.admission.identity, host: peer.isHost }) };
  }

  private tell(everyone: Peer[], name: 'pollOpened' | 'pollClosed', poll: Poll, except: Peer): void {
    for (const peer of everyone) if (peer !== except) peer.notify(name, { poll: this.view(poll, peer) });
  }

  private view(poll: Poll, peer: Peer): RoomPoll {
    return this.polls.viewFor(poll, { identity: peer.admission.identity, host: peer.isHost });
  }

  private actor({ peer }: PeerInRoom): PollActor {
    if (peer.state !== 'joined' || !peer.participantId) throw AppError.conflict('Join the room first');
    let allowance = this.allowances.get(peer);
    if (!allowance) this.allowances.set(peer, (allowance = new TokenBucket(POLL_BURST, POLL_REFILL_PER_SECOND, this.clock.now())));
    if (!allowance.take(this.clock.now())) throw new AppError('rate_limited', 'You are voting too fast; wait a moment');
    return { participantId: peer.participantId, identity: peer.admission.identity, name: peer.name, host: peer.isHost };
  }
}
