import type { Principal } from '../identity/identity.service';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { MeetingsService } from '../meetings/meetings.service';
import { toPage, type Page, type PageRequest } from '../shared/paging';
import type { ParticipantRow, ParticipantsRepo } from './participants.repo';

/** The participant resource as the API returns it (the stored row, unchanged). */
export type Participant = ParticipantRow;

/** People who joined meetings' rooms. */
export class ParticipantsService {
  constructor(
    private readonly repo: ParticipantsRepo,
    private readonly meetings: MeetingsService,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** Records that someone joined a meeting's room. */
  recordJoin(meetingId: string, who: Pick<ParticipantRow, 'name' | 'role' | 'identity'>): ParticipantRow {
    const row: ParticipantRow = {
      id: this.ids.next('prt'),
      meeting_id: meetingId,
      ...who,
      joined_at: isoAt(this.clock.now()),
      left_at: null,
    };
    this.repo.insert(row);
    return row;
  }

  /** Records that a participant left; false when that was already recorded. */
  recordLeave(participantId: string): boolean {
    return this.repo.markLeft(participantId, isoAt(this.clock.now()));
  }

  /** Records everyone still marked as in a room as left now: at start-up nobody can be connected to this process yet. */
  recordAllLeft(): number {
    return this.repo.markAllLeft(isoAt(this.clock.now()));
  }

  /** The distinct names of everyone who joined a meeting's room, for background work (no principal). */
  namesIn(meetingId: string): string[] {
    return [...new Set(this.repo.list(meetingId, null, 10_000).map((p) => p.name))];
  }

  /** One page of the participants of a meeting the principal can read, newest first. */
  list(principal: Principal, meetingIdOrCode: string, page: PageRequest): Page<Participant> {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    return toPage(this.repo.list(meeting.id, page.after, page.limit + 1), page.limit, (row): Participant => row);
  }
}
