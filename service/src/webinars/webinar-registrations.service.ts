import type { EventsService } from '../events/events.service';
import type { Principal } from '../identity/identity.service';
import { AppError } from '../shared/errors';
import { meetingRef, type MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Transaction } from '../shared/transaction';
import { toPage, type Page, type PageRequest } from '../shared/paging';
import type { MeetingRow } from '../meetings/meetings.repo';
import type { JoinGrant, RoomLinks } from '../rooms/room-links';
import { icsCalendar } from '../shared/ics';
import type { RegistrationRow, RegistrationsRepo } from './webinar-registrations.repo';
import type { CreateRegistrationInput } from './webinar-registrations.schemas';

/** The registration resource of the API. */
export interface Registration {
  id: string;
  webinar: { slug: string; title: string; meeting_id: string };
  email: string;
  name: string;
  join_url: string;
  created_at: string;
}

/** What RegistrationsService works with. */
export interface RegistrationsServiceDeps {
  repo: RegistrationsRepo;
  meetings: MeetingsService;
  links: RoomLinks;
  events: EventsService;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
}

/** Webinar registration: one registration per webinar and email address; each new one emits registration.created. */
export class RegistrationsService {
  private readonly repo: RegistrationsRepo;
  private readonly meetings: MeetingsService;
  private readonly links: RoomLinks;
  private readonly events: EventsService;
  private readonly transaction: Transaction;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;

  constructor(deps: RegistrationsServiceDeps) {
    this.repo = deps.repo;
    this.meetings = deps.meetings;
    this.links = deps.links;
    this.events = deps.events;
    this.transaction = deps.transaction;
    this.ids = deps.ids;
    this.clock = deps.clock;
  }

  /** The registration `id` of the webinar `meetingId`, or not_found (the room reads the registrant's name from it). */
  findForWebinar(meetingId: string, id: string): RegistrationRow {
    const row = this.repo.findById(id);
    if (!row || row.meeting_id !== meetingId) throw AppError.notFound(`Registration ${id}`);
    return row;
  }

  /** Registers `input.email` for the webinar `slug`; `created` is false when that email was already registered. */
  register(principal: Principal, slug: string, input: CreateRegistrationInput): { registration: Registration; created: boolean } {
    return this.registerFor(this.meetings.findWebinar(principal, slug), input);
  }

  /**
   * Registers `input.email` for `webinar` (the API and the public registration page both end here, so both emit the
   * same registration.created); `created` is false when that email was already registered.
   */
  registerFor(webinar: MeetingRow, input: CreateRegistrationInput): { registration: Registration; created: boolean } {
    const slug = webinar.slug ?? '';
    const emailNormalized = input.email.trim().toLowerCase();
    const existing = this.repo.findByEmail(webinar.id, emailNormalized);
    const view = (row: RegistrationRow) => this.view(webinar, row);
    if (existing) return { registration: view(existing), created: false };
    if (webinar.status === 'ended' || webinar.status === 'cancelled') {
      throw AppError.conflict(`Webinar ${slug} is ${webinar.status} and takes no new registrations`);
    }
    const row: RegistrationRow = {
      id: this.ids.next('reg'),
      meeting_id: webinar.id,
      email: input.email.trim(),
      email_normalized: emailNormalized,
      name: input.name.trim(),
      created_at: isoAt(this.clock.now()),
    };
    const registration = view(row);
    this.transaction(() => {
      this.repo.insert(row);
      const { id, email, name, join_url, created_at } = registration;
      this.events.emit(
        webinar.organization_id,
        'registration.created',
        {
          registration: { id, email, name, join_url, created_at },
          webinar: registration.webinar,
          meeting: meetingRef(this.meetings.view(webinar)),
        },
        { slug },
      );
    });
    return { registration, created: true };
  }

  /**
   * The webinar whose public registration page is `/w/<slug>`: not_found when no organization uses the slug, or when
   * several do and `organizationId` (the page's `?org=`) does not pick one of them.
   */
  publicWebinar(slug: string, organizationId?: string): MeetingRow {
    const matches = this.repo.webinarsWithSlug(slug).filter((w) => organizationId === undefined || w.organization_id === organizationId);
    if (matches.length !== 1) throw AppError.notFound(`Webinar ${slug}`);
    return this.meetings.findAnywhere(matches[0]!.id);
  }

  /** An iCalendar file for the registrant whose personal join link carries `inviteToken`; not_found unless it is a link to `webinar`. */
  calendarFor(webinar: MeetingRow, inviteToken: string): string {
    let grant: JoinGrant;
    try {
      grant = this.links.grantOf(inviteToken);
    } catch {
      throw AppError.notFound('Registration');
    }
    if (grant.role !== 'guest' || grant.meetingId !== webinar.id) throw AppError.notFound('Registration');
    const registration = this.view(webinar, this.findForWebinar(webinar.id, grant.registrationId));
    const start = webinar.scheduled_at_ms;
    return icsCalendar({
      uid: `${registration.id}@${new URL(registration.join_url).host}`,
      start,
      end: start + webinar.duration_minutes * 60_000,
      summary: webinar.title,
      url: registration.join_url,
      stamp: this.clock.now(),
      timeZone: webinar.time_zone ?? undefined,
    });
  }

  /** One page of a webinar's registrations, newest first (a meeting that is no webinar has none). */
  list(principal: Principal, meetingIdOrCode: string, page: PageRequest): Page<Registration> {
    const webinar = this.meetings.find(principal, meetingIdOrCode);
    return toPage(this.repo.list(webinar.id, page.after, page.limit + 1), page.limit, (row) => this.view(webinar, row));
  }

  /** The webinar `slug`'s registrations, newest first, or only the one for `email` (compared case-insensitively) when given. */
  search(principal: Principal, slug: string, email: string | undefined, page: PageRequest): Page<Registration> {
    const webinar = this.meetings.findWebinar(principal, slug);
    const view = (row: RegistrationRow) => this.view(webinar, row);
    if (email === undefined) return toPage(this.repo.list(webinar.id, page.after, page.limit + 1), page.limit, view);
    const row = this.repo.findByEmail(webinar.id, email.trim().toLowerCase());
    return { data: row ? [view(row)] : [], has_more: false, next_cursor: null };
  }

  private view(webinar: MeetingRow, row: RegistrationRow): Registration {
    return {
      id: row.id,
      webinar: { slug: webinar.slug ?? '', title: webinar.title, meeting_id: webinar.id },
      email: row.email,
      name: row.name,
      join_url: this.links.registrantJoinUrl(webinar, row.id, row.created_at),
      created_at: row.created_at,
    };
  }
}
