import type { EventsService } from '../events/events.service';
import type { Principal } from '../identity/identity.service';
import { AppError } from '../shared/errors';
import { meetingRef, type MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import type { Transaction } from '../shared/transaction';
import type { SearchService } from '../search/search.service';
import type { PageRequest } from '../shared/paging';
import type { Transcript, TranscriptListing, TranscriptSegment, TranscriptsRepo } from './transcripts.repo';

/** What TranscriptsService works with. */
export interface TranscriptsServiceDeps {
  repo: TranscriptsRepo;
  meetings: MeetingsService;
  events: EventsService;
  search: SearchService;
  transaction: Transaction;
  clock: Clock;
}

/** Transcripts of meetings; the media pipeline calls `complete`, which emits transcript.ready. */
export class TranscriptsService {
  private readonly repo: TranscriptsRepo;
  private readonly meetings: MeetingsService;
  private readonly events: EventsService;
  private readonly search: SearchService;
  private readonly transaction: Transaction;
  private readonly clock: Clock;

  constructor(deps: TranscriptsServiceDeps) {
    this.repo = deps.repo;
    this.meetings = deps.meetings;
    this.events = deps.events;
    this.search = deps.search;
    this.transaction = deps.transaction;
    this.clock = deps.clock;
  }

  /**
   * The transcript of a meeting the principal can read; not_found until it exists. `translateTo` other than the
   * transcript's own language is refused: no translation engine is configured.
   */
  find(principal: Principal, meetingIdOrCode: string, opts: { translateTo?: string } = {}): TranscriptView {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    const transcript = this.repo.find(meeting.id);
    if (!transcript) throw AppError.notFound(`Transcript of meeting ${meeting.code}`);
    if (opts.translateTo !== undefined && primaryLanguage(opts.translateTo) !== primaryLanguage(transcript.language)) {
      throw AppError.invalid([
        {
          param: 'translate_to',
          message: `is not supported: no translation engine is configured on this server, so the transcript is only available in its original language (${transcript.language}); ask again without translate_to`,
        },
      ]);
    }
    return transcriptView(transcript);
  }

  /** The transcript of a breakout room of a meeting the principal can read; not_found until it exists (or for another meeting's room). */
  findInBreakout(principal: Principal, meetingIdOrCode: string, breakoutRoomId: string): TranscriptView {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    const transcript = breakoutRoomId ? this.repo.find(meeting.id, breakoutRoomId) : undefined;
    if (!transcript) throw AppError.notFound(`Transcript of breakout room ${breakoutRoomId} of meeting ${meeting.code}`);
    return transcriptView(transcript);
  }

  /** The stored transcript of a meeting (its main room's, or its breakout room's), for background work (no principal); undefined until it exists. */
  stored(meetingId: string, breakoutRoomId: string | null = null): Transcript | undefined {
    return this.repo.find(meetingId, breakoutRoomId);
  }

  /** Transcripts (without text) of the meetings the principal can read, newest meeting first: up to `page.limit + 1`, for `toPage`. */
  list(principal: Principal, page: PageRequest): TranscriptListing[] {
    return this.repo.list(principal.organizationIds, page.after, page.limit + 1);
  }

  /**
   * Stores the finished transcript of a meeting's main room (or of its breakout room `breakoutRoomId`) and emits
   * transcript.ready (with who spoke, and `breakout_room_id`: null for the main room) in the same transaction. A
   * segment without `participant_id` is stored with null. Only the main room's transcript is indexed for search.
   */
  complete(
    meetingId: string,
    input: { language: string; segments: SpokenSegment[] },
    breakoutRoomId: string | null = null,
  ): TranscriptView {
    return this.transaction(() => {
      const meeting = this.meetings.findAnywhere(meetingId);
      const now = isoAt(this.clock.now());
      const transcript: Transcript = {
        meeting_id: meeting.id,
        breakout_room_id: breakoutRoomId,
        language: input.language,
        status: 'ready',
        text: input.segments.map((s) => s.text).join(' '),
        segments: input.segments.map((s) => ({ ...s, participant_id: s.participant_id ?? null })),
        created_at: this.repo.find(meeting.id, breakoutRoomId)?.created_at ?? now,
        updated_at: now,
      };
      this.repo.save(transcript);
      // A hit names a segment of the meeting's transcript; breakout rooms' transcripts are not searched.
      if (breakoutRoomId === null) this.search.indexTranscript(meeting.id, meeting.organization_id, transcript.segments, now);
      this.events.emit(meeting.organization_id, 'transcript.ready', {
        meeting: meetingRef(this.meetings.view(meeting)),
        transcript: {
          breakout_room_id: breakoutRoomId,
          language: transcript.language,
          segment_count: transcript.segments.length,
          speakers: speakersOf(transcript.segments),
        },
      });
      return transcriptView(transcript);
    });
  }
}

/**
 * A transcript as the API shows it: the meeting's (main room's) exactly as before breakout rooms had their own, without
 * `breakout_room_id`; a breakout room's with it.
 */
export function transcriptView(transcript: Transcript): TranscriptView {
  const { breakout_room_id: breakoutRoomId, ...view } = transcript;
  return breakoutRoomId === null ? view : { ...view, breakout_room_id: breakoutRoomId };
}

/** A transcript as the API shows it (`breakout_room_id` only on a breakout room's). */
export type TranscriptView = Omit<Transcript, 'breakout_room_id'> & { breakout_room_id?: string };

/** A segment as the pipeline hands it over: `participant_id` may be left out (unknown). */
export type SpokenSegment = Omit<TranscriptSegment, 'participant_id'> & { participant_id?: string | null };

/** Who spoke in a transcript: each distinct named speaker (name and participant) once, in the order they first spoke. */
export function speakersOf(segments: TranscriptSegment[]): { name: string; participant_id: string | null }[] {
  const seen = new Map<string, { name: string; participant_id: string | null }>();
  for (const s of segments) {
    if (s.speaker === null) continue;
    const key = `${s.participant_id ?? ''}\0${s.speaker}`;
    if (!seen.has(key)) seen.set(key, { name: s.speaker, participant_id: s.participant_id });
  }
  return [...seen.values()];
}

function primaryLanguage(tag: string): string {
  return tag.split(/[-_]/)[0]!.toLowerCase();
}
