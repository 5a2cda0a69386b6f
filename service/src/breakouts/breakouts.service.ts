import type { Principal } from '../identity/identity.service';
import type { JobsRepo } from '../jobs/jobs.repo';
import { processingStateOf } from '../jobs/processing-state';
import type { MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import type { Transaction } from '../shared/transaction';
import type { RecordingsRepo } from '../recordings/recordings.repo';
import type { TranscriptsRepo } from '../transcripts/transcripts.repo';
import { BREAKOUT_LIMITS, type BreakoutRoom, type BreakoutStatus, type BreakoutTranscriptStatus } from './breakouts.protocol';
import type { BreakoutAssignmentRow, BreakoutRoomRow, BreakoutsRepo } from './breakouts.repo';

/** Who acts on breakout rooms, and whether they are a host. */
export interface BreakoutActor {
  host: boolean;
}

/** A person of the meeting who can be assigned. */
export interface Assignee {
  identity: string;
  participantId: string;
  name: string;
}

/** The meeting's current set of breakout rooms, with who is assigned where. */
export interface BreakoutSet {
  status: BreakoutStatus | 'none';
  rooms: { id: string; name: string; assigned: Assignee[] }[];
  closesAt: string | null;
  timerEndsAt: string | null;
}

/** What BreakoutsService works with. */
export interface BreakoutsServiceDeps {
  repo: BreakoutsRepo;
  meetings: MeetingsService;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  /** Where the public API is served ({base_url}), for the links to breakout rooms' transcripts. */
  baseUrl: string;
  /** A number in [0, 1) (Math.random in production; tests may fix it). */
  random?: () => number;
  /** Where what the rooms produced is stored: their recordings, their transcripts and the jobs making those. */
  produced: { recordings: RecordingsRepo; transcripts: TranscriptsRepo; jobs: JobsRepo };
}

/** What a meeting's breakout room produced: its recordings (oldest first) and where its transcript stands (null: none asked for). */
interface BreakoutResults {
  recordingIds: string[];
  transcript: BreakoutTranscriptStatus | null;
}

/** A transcript's state (the rule the meeting's own transcript follows) as a breakout room's listing says it. */
const TRANSCRIPT_STATUS = { none: null, pending: 'processing', running: 'processing', failed: 'failed', ready: 'ready' } as const;

/**
 * Breakout rooms of a meeting: a host prepares a set (named rooms), assigns people by hand or at random,
 * opens it, may set a timer, and closes it: a closing set counts down (30 s) before everyone is back in the
 * main room. Stored in SQLite; who is moved where is the room's business.
 */
export class BreakoutsService {
  private readonly random: () => number;

  constructor(private readonly deps: BreakoutsServiceDeps) {
    this.random = deps.random ?? Math.random;
  }

  /** A host prepares `names.length` rooms, replacing an earlier draft; conflict while a set is open. */
  create(meetingId: string, actor: BreakoutActor, names: string[]): BreakoutSet {
    assertHost(actor);
    const trimmed = names.map((name) => name.trim());
    const errors = trimmed.flatMap((name, i) => (name ? [] : [{ param: `names/${i}`, message: 'must not be blank' }]));
    if (new Set(trimmed.map((n) => n.toLowerCase())).size !== trimmed.length) errors.push({ param: 'names', message: 'must all differ' });
    if (errors.length) throw AppError.invalid(errors);
    if (this.deps.repo.current(meetingId).some((row) => row.status !== 'draft')) {
      throw AppError.conflict('Breakout rooms are open: close them before preparing new ones');
    }
    const createdAt = isoAt(this.deps.clock.now());
    this.deps.transaction(() => {
      this.deps.repo.deleteDrafts(meetingId);
      trimmed.forEach((name, position) =>
        this.deps.repo.insert({
          id: this.deps.ids.next('brk'),
          meeting_id: meetingId,
          name,
          position,
          status: 'draft',
          created_at: createdAt,
          opened_at: null,
          closes_at: null,
          closed_at: null,
          timer_ends_at: null,
        }),
      );
    });
    return this.current(meetingId);
  }

  /** A host assigns people to rooms of the current set (`room: null` unassigns). */
  assign(meetingId: string, actor: BreakoutActor, assignments: { person: Assignee; room: string | null }[]): BreakoutSet {
    assertHost(actor);
    const rooms = this.openOrDraft(meetingId);
    const ids = new Set(rooms.map((room) => room.id));
    const errors = assignments.flatMap(({ room }, i) =>
      room === null || ids.has(room) ? [] : [{ param: `assignments/${i}/room`, message: 'is not a breakout room of this meeting' }],
    );
    if (errors.length) throw AppError.invalid(errors);
    this.deps.transaction(() => {
      for (const { person, room } of assignments) this.deps.repo.assign(meetingId, person.identity, room ? row(room, person) : null);
    });
    return this.current(meetingId);
  }

  /** A host assigns `people` at random, evenly over the rooms (room sizes differ by at most one). */
  assignRandomly(meetingId: string, actor: BreakoutActor, people: Assignee[]): BreakoutSet {
    assertHost(actor);
    const rooms = this.openOrDraft(meetingId);
    const shuffled = [...people];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    return this.assign(
      meetingId,
      actor,
      shuffled.map((person, i) => ({ person, room: rooms[i % rooms.length]!.id })),
    );
  }

  /** A host opens the prepared rooms. */
  open(meetingId: string, actor: BreakoutActor): BreakoutSet {
    assertHost(actor);
    const rooms = this.deps.repo.current(meetingId);
    if (rooms.length === 0) throw AppError.conflict('Prepare breakout rooms first');
    if (rooms[0]!.status !== 'draft') throw AppError.conflict('The breakout rooms are open already');
    this.deps.transaction(() => this.deps.repo.setStatus(meetingId, 'open', { opened_at: isoAt(this.deps.clock.now()) }));
    return this.current(meetingId);
  }

  /** A host sets a timer on the open rooms: when it runs out, they close (with the countdown). */
  setTimer(meetingId: string, actor: BreakoutActor, minutes: number): BreakoutSet {
    assertHost(actor);
    const rooms = this.deps.repo.current(meetingId);
    if (rooms[0]?.status !== 'open') throw AppError.conflict('Open the breakout rooms first');
    this.deps.transaction(() => this.deps.repo.setTimer(meetingId, isoAt(this.deps.clock.now() + minutes * 60_000)));
    return this.current(meetingId);
  }

  /** A host closes the open rooms: everyone goes back to the main room once the countdown is over. */
  close(meetingId: string, actor: BreakoutActor): BreakoutSet {
    assertHost(actor);
    this.startClosing(meetingId);
    return this.current(meetingId);
  }

  /** Meetings whose rooms must move on now: countdown over (finish them) or timer run out (start closing). */
  due(): { finish: string[]; startClosing: string[] } {
    const due = this.deps.repo.due(isoAt(this.deps.clock.now()));
    const finish = due.filter((meetingId) => this.deps.repo.current(meetingId)[0]?.status === 'closing');
    return { finish, startClosing: due.filter((meetingId) => !finish.includes(meetingId)) };
  }

  /** Starts the countdown of an open set (the timer ran out, or a host closed it). */
  startClosing(meetingId: string): void {
    const rooms = this.deps.repo.current(meetingId);
    if (rooms[0]?.status !== 'open') throw AppError.conflict('No breakout rooms are open');
    const closesAt = isoAt(this.deps.clock.now() + BREAKOUT_LIMITS.closeCountdownSeconds * 1000);
    this.deps.transaction(() => this.deps.repo.setStatus(meetingId, 'closing', { closes_at: closesAt }));
  }

  /** Marks the current set closed (everyone was moved back, or the meeting ended). */
  finish(meetingId: string): void {
    this.deps.transaction(() => this.deps.repo.setStatus(meetingId, 'closed', { closed_at: isoAt(this.deps.clock.now()) }));
  }

  /** The meeting's current set (status `none` when there is none). */
  current(meetingId: string): BreakoutSet {
    const rooms = this.deps.repo.current(meetingId);
    const assignments = this.deps.repo.assignments(meetingId);
    return {
      status: rooms[0]?.status ?? 'none',
      rooms: rooms.map((room) => ({
        id: room.id,
        name: room.name,
        assigned: assignments
          .filter((a) => a.breakout_room_id === room.id)
          .map((a) => ({ identity: a.identity, participantId: a.participant_id, name: a.name })),
      })),
      closesAt: rooms[0]?.closes_at ?? null,
      timerEndsAt: rooms[0]?.timer_ends_at ?? null,
    };
  }

  /**
   * GET /meetings/{id}/breakout-rooms: every breakout room the meeting had, with who was assigned, its recordings and
   * its transcript (state and link).
   */
  list(principal: Principal, meetingIdOrCode: string): { data: BreakoutRoom[] } {
    const meeting = this.deps.meetings.find(principal, meetingIdOrCode);
    const assignments = this.deps.repo.assignments(meeting.id);
    const results = this.results(meeting.id);
    return {
      data: this.deps.repo.all(meeting.id).map((room: BreakoutRoomRow) => {
        const produced = results.get(room.id);
        const transcriptUrl = `${this.deps.baseUrl}/api/v1/public/meetings/${meeting.id}/breakout-rooms/${room.id}/transcript`;
        return {
          id: room.id,
          name: room.name,
          status: room.status,
          participants: assignments
            .filter((a) => a.breakout_room_id === room.id)
            .map((a) => ({ participant_id: a.participant_id, name: a.name })),
          recording_ids: produced?.recordingIds ?? [],
          transcript: produced?.transcript ? { status: produced.transcript, url: transcriptUrl } : null,
        };
      }),
    };
  }

  /** What each breakout room of the meeting produced, by breakout room id. */
  private results(meetingId: string): Map<string, BreakoutResults> {
    const { recordings, transcripts, jobs } = this.deps.produced;
    const results = new Map<string, BreakoutResults>();
    for (const row of recordings.inBreakoutRooms(meetingId)) {
      const entry = results.get(row.breakout_room_id) ?? { recordingIds: [], transcript: null };
      results.set(row.breakout_room_id, { ...entry, recordingIds: [...entry.recordingIds, row.id] });
    }
    const latestJobs = jobs.latestTranscribeByBreakoutRoom(meetingId);
    const storedAt = transcripts.storedInBreakoutRooms(meetingId);
    for (const roomId of new Set([...latestJobs.keys(), ...storedAt.keys()])) {
      const entry = results.get(roomId) ?? { recordingIds: [], transcript: null };
      const state = processingStateOf(latestJobs.get(roomId), storedAt.get(roomId));
      results.set(roomId, { ...entry, transcript: TRANSCRIPT_STATUS[state.status] });
    }
    return results;
  }

  private openOrDraft(meetingId: string): BreakoutRoomRow[] {
    const rooms = this.deps.repo.current(meetingId);
    if (rooms.length === 0 || rooms[0]!.status === 'closing') throw AppError.conflict('Prepare breakout rooms first');
    return rooms;
  }
}

function row(roomId: string, person: Assignee): BreakoutAssignmentRow {
  return { breakout_room_id: roomId, identity: person.identity, participant_id: person.participantId, name: person.name };
}

function assertHost(actor: BreakoutActor): void {
  if (!actor.host) throw AppError.missingScope('host', 'Only a host can manage breakout rooms');
}
