/**
 * Breakout rooms on the wire: the REST resource and what the room's signalling socket carries. Types
 * only, with no imports, so the room page and the dashboard can import it.
 */

/** Limits of a set of breakout rooms. */
export const BREAKOUT_LIMITS = {
  maxRooms: 20,
  maxNameLength: 60,
  maxMessageLength: 500,
  maxTimerMinutes: 240,
  /** How long a closing set waits before everyone is back in the main room. */
  closeCountdownSeconds: 30,
} as const;

/** Where a set of breakout rooms stands: being prepared, open, counting down to closing, closed. */
export type BreakoutStatus = 'draft' | 'open' | 'closing' | 'closed';

/** A breakout room as the REST API returns it, with what it produced when the meeting was recorded or transcribed. */
export interface BreakoutRoom {
  id: string;
  name: string;
  status: BreakoutStatus;
  participants: { participant_id: string; name: string }[];
  /** The room's recordings (tracks and composite), oldest first; listed by GET /meetings/{id}/recordings too. */
  recording_ids: string[];
  /** The room's own transcript: being made, ready (at `url`) or failed; null when none was asked for. */
  transcript: { status: BreakoutTranscriptStatus; url: string } | null;
}

/** Where a breakout room's transcript stands. */
export type BreakoutTranscriptStatus = 'processing' | 'ready' | 'failed';

/** Someone who can be assigned: a person in the meeting's rooms (main or breakout). */
export interface BreakoutPerson {
  identity: string;
  name: string;
  /** The breakout room they are in now, or null in the main room. */
  in: string | null;
}

/** The breakout rooms as one person in the meeting sees them. */
export interface BreakoutState {
  status: BreakoutStatus | 'none';
  rooms: { id: string; name: string; assigned: { identity: string; name: string }[] }[];
  /** Hosts only: everyone in the meeting's rooms, to assign. */
  people: BreakoutPerson[];
  /** The room this person is assigned to, if any. */
  mine: string | null;
  /** The breakout room this person is in now, or null in the main room. */
  current: string | null;
  /** When a closing set sends everyone back (ISO 8601), or null. */
  closes_at: string | null;
  /** The host's timer (ISO 8601), or null. */
  timer_ends_at: string | null;
}

/** The room socket's breakout methods (hosts prepare, open, message, time and close; everyone moves). */
export interface BreakoutMethods {
  /** Hosts only: prepares `names.length` rooms (replacing an earlier draft). */
  createBreakouts: { data: { names: string[] }; result: { breakouts: BreakoutState } };
  /** Hosts only: assigns people by identity (`room: null` unassigns). */
  assignBreakouts: { data: { assignments: { identity: string; room: string | null }[] }; result: { breakouts: BreakoutState } };
  /** Hosts only: assigns everyone in the meeting but the hosts at random, evenly. */
  assignBreakoutsRandomly: { data: Record<string, never>; result: { breakouts: BreakoutState } };
  /** Hosts only: opens the rooms; the assigned are told and move with one click. */
  openBreakouts: { data: Record<string, never>; result: { breakouts: BreakoutState } };
  /** Hosts only: a message shown in every breakout room and the main room. */
  broadcastToBreakouts: { data: { text: string }; result: Record<string, never> };
  /** Hosts only: a timer everyone sees; when it ends, the rooms close (with the countdown). */
  setBreakoutTimer: { data: { minutes: number }; result: { breakouts: BreakoutState } };
  /** Hosts only: everyone goes back to the main room after the 30-second countdown. */
  closeBreakouts: { data: Record<string, never>; result: { breakouts: BreakoutState } };
  /** Moves this person into a breakout room (their own; hosts may visit any) or, with `room: null`, back to the main room. */
  moveToBreakout: { data: { room: string | null }; result: BreakoutMove };
  /** The breakout rooms as this person sees them. */
  listBreakouts: { data: Record<string, never>; result: { breakouts: BreakoutState } };
}

/** A move between the main room and a breakout room: the page sets up its media on the new router. */
export interface BreakoutMove {
  /** The breakout room now joined, or null for the main room. */
  room: { id: string; name: string } | null;
  rtpCapabilities: unknown;
  /** The new room's state, as `join` returns it (typed as the room protocol's RoomState). */
  state: unknown;
}

/** The room socket's breakout notifications. */
export interface BreakoutNotifications {
  /** The breakout rooms changed (created, assigned, opened, timer, closing, closed). */
  breakouts: { breakouts: BreakoutState };
  /** A host's message to every room. */
  breakoutMessage: { text: string; from: string };
  /** The service moved this person (the rooms closed): set up media on the new router as for `moveToBreakout`. */
  breakoutMoved: BreakoutMove;
}
