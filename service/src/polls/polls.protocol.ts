/**
 * Polls on the wire: the REST resource and what the room's signalling socket carries. Types only, with
 * no imports, so the room page and the dashboard can import it.
 */

/** Limits a poll must respect, published so the page can respect them. */
export const POLL_LIMITS = {
  minOptions: 2,
  maxOptions: 10,
  maxQuestionLength: 300,
  maxOptionLength: 120,
  /** Polls one meeting may have; more are refused. */
  maxPollsPerMeeting: 50,
} as const;

/** Whether a poll still takes votes. */
export type PollStatus = 'open' | 'closed';

/** Someone who voted for an option (named polls only). */
export interface PollVoter {
  participant_id: string;
  name: string;
}

/** One option with its count; `voters` only when the poll is not anonymous. */
export interface PollOption {
  id: string;
  text: string;
  votes: number;
  voters?: PollVoter[];
}

/** A poll with its results: the REST resource and what hosts (and, once closed, everyone) see. */
export interface Poll {
  id: string;
  question: string;
  multiple: boolean;
  anonymous: boolean;
  status: PollStatus;
  options: PollOption[];
  /** How many people voted. */
  voters: number;
  created_at: string;
  closed_at: string | null;
}

/** A poll as one person in the room sees it: results (`options[].votes`) are null for guests while it is open. */
export interface RoomPoll extends Omit<Poll, 'options'> {
  options: { id: string; text: string; votes: number | null; voters?: PollVoter[] }[];
  /** The options this person chose. */
  mine: string[];
}

/** A new poll as a host writes it. */
export interface NewPoll {
  question: string;
  options: string[];
  multiple?: boolean;
  anonymous?: boolean;
}

/** The room socket's poll methods (hosts create and close; everyone in the room votes and lists). */
export interface PollMethods {
  /** Hosts only: opens a poll; everyone in the room gets `pollOpened`. */
  createPoll: { data: NewPoll; result: { poll: RoomPoll } };
  /** Chooses one option (or several in a multiple-choice poll), replacing this person's earlier choice; conflict once closed. */
  votePoll: { data: { pollId: string; optionIds: string[] }; result: { poll: RoomPoll } };
  /** Hosts only: closes a poll; everyone gets `pollClosed` with the results. */
  closePoll: { data: { pollId: string }; result: { poll: RoomPoll } };
  /** The meeting's polls as this person sees them (a page that joins or reconnects asks once). */
  listPolls: { data: Record<string, never>; result: { polls: RoomPoll[] } };
}

/** The room socket's poll notifications. */
export interface PollNotifications {
  /** A host opened a poll. */
  pollOpened: { poll: RoomPoll };
  /** Hosts only: someone voted; the live results. */
  pollResults: { poll: RoomPoll };
  /** A host closed a poll: the results, for everyone. */
  pollClosed: { poll: RoomPoll };
}
