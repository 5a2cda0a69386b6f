import type { Principal } from '../identity/identity.service';
import type { MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import type { Transaction } from '../shared/transaction';
import { POLL_LIMITS, type NewPoll, type Poll, type RoomPoll } from './polls.protocol';
import type { PollRow, PollsRepo, PollVoteRow } from './polls.repo';

/** Who acts on a poll: a participant of the meeting, and whether they are a host. */
export interface PollActor {
  participantId: string;
  identity: string;
  name: string;
  host: boolean;
}

/** What PollsService works with. */
export interface PollsServiceDeps {
  repo: PollsRepo;
  meetings: MeetingsService;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
}

/**
 * Polls in a meeting: hosts create and close them, participants vote (one choice, or several in a
 * multiple-choice poll; a new vote replaces the earlier one until the poll closes). Everything is stored
 * before the caller answers; who is told what is the room's business.
 */
export class PollsService {
  constructor(private readonly deps: PollsServiceDeps) {}

  /** A host creates an open poll in a meeting. */
  create(meetingId: string, actor: PollActor, input: NewPoll): Poll {
    assertHost(actor);
    const question = input.question.trim();
    const texts = input.options.map((text) => text.trim());
    const errors = [
      ...(question ? [] : [{ param: 'question', message: 'must not be blank' }]),
      ...texts.flatMap((text, i) => (text ? [] : [{ param: `options/${i}`, message: 'must not be blank' }])),
      ...(new Set(texts.map((text) => text.toLowerCase())).size === texts.length ? [] : [{ param: 'options', message: 'must all differ' }]),
    ];
    if (errors.length) throw AppError.invalid(errors);
    if (this.deps.repo.count(meetingId) >= POLL_LIMITS.maxPollsPerMeeting) {
      throw AppError.conflict(`A meeting can have at most ${POLL_LIMITS.maxPollsPerMeeting} polls`);
    }
    const row: PollRow = {
      id: this.deps.ids.next('pol'),
      meeting_id: meetingId,
      question,
      multiple: input.multiple ? 1 : 0,
      anonymous: input.anonymous ? 1 : 0,
      status: 'open',
      created_by: actor.participantId,
      created_at: isoAt(this.deps.clock.now()),
      closed_at: null,
    };
    const options = texts.map((text, position) => ({ id: this.deps.ids.next('opt'), poll_id: row.id, position, text }));
    this.deps.transaction(() => this.deps.repo.insert(row, options));
    return this.results(row);
  }

  /** Records a participant's choice in an open poll, replacing their earlier one; returns the results. */
  vote(meetingId: string, pollId: string, actor: PollActor, optionIds: string[]): Poll {
    const poll = this.pollIn(meetingId, pollId);
    if (poll.status !== 'open') throw AppError.conflict('This poll is closed');
    const valid = new Set(this.deps.repo.options(poll.id).map((option) => option.id));
    const errors = [
      ...(optionIds.length === 0 ? [{ param: 'optionIds', message: 'must name at least one option' }] : []),
      ...(poll.multiple === 0 && optionIds.length > 1
        ? [{ param: 'optionIds', message: 'must name one option: this poll is single choice' }]
        : []),
      ...(new Set(optionIds).size === optionIds.length ? [] : [{ param: 'optionIds', message: 'must not repeat an option' }]),
      ...optionIds.flatMap((id, i) => (valid.has(id) ? [] : [{ param: `optionIds/${i}`, message: 'is not an option of this poll' }])),
    ];
    if (errors.length) throw AppError.invalid(errors);
    const votedAt = isoAt(this.deps.clock.now());
    const rows: PollVoteRow[] = optionIds.map((optionId) => ({
      poll_id: poll.id,
      option_id: optionId,
      voter_identity: actor.identity,
      participant_id: actor.participantId,
      voter_name: actor.name,
      voted_at: votedAt,
    }));
    this.deps.transaction(() => this.deps.repo.replaceVote(poll.id, actor.identity, rows));
    return this.results(poll);
  }

  /** A host closes an open poll; returns the final results. */
  close(meetingId: string, pollId: string, actor: PollActor): Poll {
    assertHost(actor);
    const poll = this.pollIn(meetingId, pollId);
    if (!this.deps.transaction(() => this.deps.repo.close(poll.id, isoAt(this.deps.clock.now())))) {
      throw AppError.conflict('This poll is closed already');
    }
    return this.results(this.deps.repo.find(poll.id)!);
  }

  /** A meeting's polls with their results, oldest first. */
  forMeeting(meetingId: string): Poll[] {
    return this.deps.repo.byMeeting(meetingId).map((row) => this.results(row));
  }

  /** GET /meetings/{id}/polls: the polls of a meeting of the caller's organization. */
  list(principal: Principal, meetingIdOrCode: string): { data: Poll[] } {
    return { data: this.forMeeting(this.deps.meetings.find(principal, meetingIdOrCode).id) };
  }

  /** A meeting's polls as one person in its room sees them. */
  roomView(meetingId: string, viewer: { identity: string; host: boolean }): RoomPoll[] {
    return this.forMeeting(meetingId).map((poll) => viewOf(poll, viewer, this.choiceOf(poll.id, viewer.identity)));
  }

  /** One poll as one person sees it. */
  viewFor(poll: Poll, viewer: { identity: string; host: boolean }): RoomPoll {
    return viewOf(poll, viewer, this.choiceOf(poll.id, viewer.identity));
  }

  private choiceOf(pollId: string, identity: string): string[] {
    return this.deps.repo
      .votes(pollId)
      .filter((vote) => vote.voter_identity === identity)
      .map((vote) => vote.option_id);
  }

  private pollIn(meetingId: string, pollId: string): PollRow {
    const poll = this.deps.repo.find(pollId);
    if (!poll || poll.meeting_id !== meetingId) throw AppError.notFound(`Poll ${pollId}`);
    return poll;
  }

  private results(row: PollRow): Poll {
    const votes = this.deps.repo.votes(row.id);
    return {
      id: row.id,
      question: row.question,
      multiple: row.multiple === 1,
      anonymous: row.anonymous === 1,
      status: row.status,
      options: this.deps.repo.options(row.id).map((option) => {
        const chosen = votes.filter((vote) => vote.option_id === option.id);
        return {
          id: option.id,
          text: option.text,
          votes: chosen.length,
          ...(row.anonymous ? {} : { voters: chosen.map((vote) => ({ participant_id: vote.participant_id, name: vote.voter_name })) }),
        };
      }),
      voters: new Set(votes.map((vote) => vote.voter_identity)).size,
      created_at: row.created_at,
      closed_at: row.closed_at,
    };
  }
}

/** Hosts see results live; everyone sees them once the poll is closed. */
function viewOf(poll: Poll, viewer: { host: boolean }, mine: string[]): RoomPoll {
  const shown = viewer.host || poll.status === 'closed';
  return {
    ...poll,
    voters: shown ? poll.voters : 0,
    options: poll.options.map((option) => (shown ? option : { id: option.id, text: option.text, votes: null })),
    mine,
  };
}

function assertHost(actor: PollActor): void {
  if (!actor.host) throw AppError.missingScope('host', 'Only a host can create or close a poll');
}
