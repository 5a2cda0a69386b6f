import type { EventsService } from '../events/events.service';
import type { Principal } from '../identity/identity.service';
import { AppError } from '../shared/errors';
import { meetingRef, type MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import type { PageRequest } from '../shared/paging';
import type { Transaction } from '../shared/transaction';
import type { SummariesRepo, Summary } from './summaries.repo';

/** Summaries of meetings; the media pipeline calls `save`, which emits summary.ready. */
export class SummariesService {
  constructor(
    private readonly repo: SummariesRepo,
    private readonly meetings: MeetingsService,
    private readonly events: EventsService,
    private readonly transaction: Transaction,
    private readonly clock: Clock,
  ) {}

  /** The summary of a meeting the principal can read; not_found until it exists. */
  find(principal: Principal, meetingIdOrCode: string): Summary {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    const summary = this.repo.find(meeting.id);
    if (!summary) throw AppError.notFound(`Summary of meeting ${meeting.code}`);
    return summary;
  }

  /** The stored summary of a meeting, for callers that already checked access; undefined until it exists. */
  stored(meetingId: string): Summary | undefined {
    return this.repo.find(meetingId);
  }

  /** Summaries of the meetings the principal can read, newest meeting first: up to `page.limit + 1`, for `toPage`. */
  list(principal: Principal, page: PageRequest): Summary[] {
    return this.repo.list(principal.organizationIds, page.after, page.limit + 1);
  }

  /** Stores a meeting's summary and emits summary.ready in the same transaction. */
  save(meetingId: string, input: Pick<Summary, 'tldr' | 'decisions' | 'action_items' | 'generator'>): Summary {
    return this.transaction(() => {
      const meeting = this.meetings.findAnywhere(meetingId);
      const summary: Summary = {
        meeting_id: meeting.id,
        ...input,
        decisions: input.decisions.map((d) => ({ ...d, speakers: d.speakers ?? [], start_seconds: d.start_seconds ?? null })),
        action_items: input.action_items.map((a) => ({ ...a, speakers: a.speakers ?? [], start_seconds: a.start_seconds ?? null })),
        created_at: isoAt(this.clock.now()),
      };
      this.repo.save(summary);
      this.events.emit(meeting.organization_id, 'summary.ready', {
        meeting: meetingRef(this.meetings.view(meeting)),
        summary: { tldr: summary.tldr },
      });
      return summary;
    });
  }
}

/** The links in an action item's text (an issue in a tracker, a document), in order of appearance, each once. */
export function trackerLinks(text: string): string[] {
  const links = (text.match(/https?:\/\/[^\s<>()"']+/g) ?? []).map((url) => url.replace(/[.,;:!?]+$/, ''));
  return [...new Set(links)];
}
