import type { EventsService } from '../events/events.service';
import type { IdentityService, Principal } from '../identity/identity.service';
import { AppError } from '../shared/errors';
import type { PageRequest } from '../shared/paging';
import { isoAt, type Clock } from '../shared/clock';
import { newMeetingCode, type IdGenerator } from '../shared/ids';
import type { Transaction } from '../shared/transaction';
import type { IdleMeetingRow, MeetingChanges, MeetingRow, MeetingsRepo, MeetingStatus } from './meetings.repo';
import { JOIN_BEFORE_START, type CreateMeetingInput, type UpdateMeetingInput } from './meetings.schemas';

/** The meeting resource of the API. */
export interface Meeting {
  id: string;
  code: string;
  title: string;
  kind: 'meeting' | 'webinar';
  slug: string | null;
  scheduled_at: string;
  duration_minutes: number;
  time_zone: string | null;
  settings: {
    waiting_room: boolean;
    transcription_auto: boolean;
    join_before_start_minutes: number;
    recording_layout: 'active_speaker' | 'grid';
    captions: boolean;
  };
  status: MeetingStatus;
  join_url: string;
  organization_id: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  ended_at: string | null;
}

const CODE_ATTEMPTS = 8;

/** Told when a meeting ended or was cancelled, after the change is stored. */
export type MeetingClosedListener = (meeting: Meeting) => void;

/** What MeetingsService works with. */
export interface MeetingsServiceDeps {
  repo: MeetingsRepo;
  identity: IdentityService;
  events: EventsService;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  baseUrl: string;
}

/** The rules of meetings and webinars: creation, edits, and the scheduled -> live -> ended / cancelled lifecycle. */
export class MeetingsService {
  private readonly closedListeners: MeetingClosedListener[] = [];

  private readonly repo: MeetingsRepo;
  private readonly identity: IdentityService;
  private readonly events: EventsService;
  private readonly transaction: Transaction;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;
  private readonly baseUrl: string;

  constructor(deps: MeetingsServiceDeps) {
    this.repo = deps.repo;
    this.identity = deps.identity;
    this.events = deps.events;
    this.transaction = deps.transaction;
    this.ids = deps.ids;
    this.clock = deps.clock;
    this.baseUrl = deps.baseUrl;
  }

  create(principal: Principal, input: CreateMeetingInput): Meeting {
    const kind = input.kind ?? 'meeting';
    if (kind === 'webinar' && input.slug === undefined) {
      throw AppError.invalid([{ param: 'slug', message: 'is required for a webinar' }]);
    }
    if (kind === 'meeting' && input.slug !== undefined) {
      throw AppError.invalid([{ param: 'slug', message: 'is only for webinars (kind: "webinar")' }]);
    }
    const org = this.identity.targetOrganization(principal, input.organization_id);
    const now = this.clock.now();
    const scheduled = input.scheduled_at ?? isoAt(now);
    const row: MeetingRow = {
      id: this.ids.next('mtg'),
      organization_id: org.id,
      code: '',
      title: input.title,
      kind,
      slug: input.slug ?? null,
      scheduled_at: scheduled,
      scheduled_at_ms: instant(scheduled, 'scheduled_at'),
      duration_minutes: input.duration_minutes ?? 60,
      time_zone: input.time_zone === undefined ? null : canonicalTimeZone(input.time_zone),
      waiting_room: input.settings?.waiting_room ? 1 : 0,
      transcription_auto: input.settings?.transcription_auto ? 1 : 0,
      recording_layout: input.settings?.recording_layout ?? 'active_speaker',
      captions: input.settings?.captions ? 1 : 0,
      join_before_start_minutes: input.settings?.join_before_start_minutes ?? JOIN_BEFORE_START.defaultMinutes,
      status: 'scheduled',
      created_at: isoAt(now),
      updated_at: isoAt(now),
      started_at: null,
      ended_at: null,
    };
    for (let attempt = 1; ; attempt++) {
      row.code = newMeetingCode();
      try {
        this.repo.insert(row);
        return this.view(row);
      } catch (err) {
        const message = (err as Error).message;
        if (message.includes('meetings.slug')) {
          throw new AppError('conflict', `The slug "${row.slug}" is already taken in this organization`, { param: 'slug' });
        }
        if (!message.includes('meetings.code') || attempt === CODE_ATTEMPTS) throw err;
      }
    }
  }

  /** Adds a listener for meetings that ended or were cancelled (the rooms disconnect everyone in them). */
  onClosed(listener: MeetingClosedListener): void {
    this.closedListeners.push(listener);
  }

  get(principal: Principal, idOrCode: string): Meeting {
    return this.view(this.find(principal, idOrCode));
  }

  /** The stored row of a meeting the principal can reach, or a 404. */
  find(principal: Principal, idOrCode: string): MeetingRow {
    const row = this.repo.find(principal.organizationIds, idOrCode);
    if (!row) throw AppError.notFound(`Meeting ${idOrCode}`);
    return row;
  }

  /** The webinar with `slug` that the principal can reach; a 404, or a 409 when several of its organizations use the slug. */
  findWebinar(principal: Principal, slug: string): MeetingRow {
    const rows = this.repo.findBySlug(principal.organizationIds, slug);
    if (rows.length === 0) throw AppError.notFound(`Webinar ${slug}`);
    if (rows.length > 1) {
      const orgs = rows.map((r) => r.organization_id).join(', ');
      throw AppError.conflict(
        `Webinar slug "${slug}" is used in several organizations this key can act in (${orgs}); use a key restricted to one organization`,
        { param: 'slug' },
      );
    }
    return rows[0]!;
  }

  list(principal: Principal, page: PageRequest, status?: MeetingStatus): MeetingRow[] {
    return this.repo.list(principal.organizationIds, { status, before: page.after, limit: page.limit + 1 });
  }

  update(principal: Principal, idOrCode: string, input: UpdateMeetingInput): Meeting {
    const row = this.find(principal, idOrCode);
    if (input.status === 'ended') {
      if (Object.keys(input).length > 1) {
        throw AppError.invalid([{ param: 'status', message: 'cannot be changed together with other fields' }]);
      }
      return this.end(row);
    }
    if (row.status === 'ended' || row.status === 'cancelled') {
      throw AppError.conflict(`Meeting ${row.code} is ${row.status} and can no longer be changed`);
    }
    const changes: MeetingChanges = { updated_at: isoAt(this.clock.now()) };
    if (input.title !== undefined) changes.title = input.title;
    if (input.scheduled_at !== undefined) {
      changes.scheduled_at = input.scheduled_at;
      changes.scheduled_at_ms = instant(input.scheduled_at, 'scheduled_at');
    }
    if (input.duration_minutes !== undefined) changes.duration_minutes = input.duration_minutes;
    if (input.time_zone !== undefined) changes.time_zone = input.time_zone === null ? null : canonicalTimeZone(input.time_zone);
    if (input.settings?.waiting_room !== undefined) changes.waiting_room = input.settings.waiting_room ? 1 : 0;
    if (input.settings?.transcription_auto !== undefined) {
      changes.transcription_auto = input.settings.transcription_auto ? 1 : 0;
    }
    if (input.settings?.recording_layout !== undefined) changes.recording_layout = input.settings.recording_layout;
    if (input.settings?.captions !== undefined) changes.captions = input.settings.captions ? 1 : 0;
    if (input.settings?.join_before_start_minutes !== undefined) {
      changes.join_before_start_minutes = input.settings.join_before_start_minutes;
    }
    return this.apply(row, changes);
  }

  /** Cancels a scheduled meeting; the record stays readable with status `cancelled`. */
  cancel(principal: Principal, idOrCode: string): Meeting {
    const row = this.find(principal, idOrCode);
    if (row.status !== 'scheduled') {
      throw AppError.conflict(`Only a scheduled meeting can be cancelled; meeting ${row.code} is ${row.status}`);
    }
    return this.closed(this.apply(row, { status: 'cancelled', updated_at: isoAt(this.clock.now()) }));
  }

  /**
   * Marks a scheduled meeting live and emits meeting.started; the rooms call this when the first
   * participant joins. Idempotent for a live meeting.
   */
  start(row: MeetingRow): Meeting {
    if (row.status === 'live') return this.view(row);
    if (row.status !== 'scheduled') throw AppError.conflict(`Meeting ${row.code} is ${row.status} and cannot start`);
    const at = isoAt(this.clock.now());
    return this.transaction(() => {
      const meeting = this.apply(row, { status: 'live', started_at: at, updated_at: at });
      this.events.emit(row.organization_id, 'meeting.started', { meeting: meetingRef(meeting) });
      return meeting;
    });
  }

  /** Ends a live meeting for everyone and emits meeting.ended. */
  end(row: MeetingRow): Meeting {
    if (row.status !== 'live') {
      throw AppError.conflict(`Only a live meeting can be ended; meeting ${row.code} is ${row.status}`);
    }
    const at = isoAt(this.clock.now());
    const ended = this.transaction(() => {
      const meeting = this.apply(row, { status: 'ended', ended_at: at, updated_at: at });
      this.events.emit(row.organization_id, 'meeting.ended', { meeting: meetingRef(meeting) });
      return meeting;
    });
    return this.closed(ended);
  }

  /**
   * Opens an ended or cancelled meeting again: back to `scheduled` (same id, code, slug and links), so it goes
   * live when someone joins. A meeting that is scheduled or live already is returned unchanged.
   */
  reopen(principal: Principal, idOrCode: string): Meeting {
    const row = this.find(principal, idOrCode);
    if (row.status === 'scheduled' || row.status === 'live') return this.view(row);
    return this.apply(row, { status: 'scheduled', started_at: null, ended_at: null, updated_at: isoAt(this.clock.now()) });
  }

  /**
   * Puts a live meeting that emptied before its scheduled start back to `scheduled`: an early visit (a host
   * trying the room) does not end the meeting; it goes live again when people come at its time.
   */
  returnToSchedule(row: MeetingRow): Meeting {
    if (row.status !== 'live')
      throw AppError.conflict(`Only a live meeting can go back to scheduled; meeting ${row.code} is ${row.status}`);
    return this.apply(row, { status: 'scheduled', started_at: null, updated_at: isoAt(this.clock.now()) });
  }

  /** A meeting by join code in any organization: the room page is open to whoever has the code. */
  findByCode(code: string): MeetingRow {
    const row = this.repo.findByCodeAnywhere(code);
    if (!row) throw AppError.notFound(`Meeting ${code}`);
    return row;
  }

  /** Live meetings nobody is in and nobody has left since `cutoff` (epoch ms), with when they emptied: the empty-room sweep. */
  idleLive(cutoff: number): IdleMeetingRow[] {
    return this.repo.idleLive(isoAt(cutoff));
  }

  /** A meeting by id, whatever organization it is in; for background work that has no caller. */
  findAnywhere(meetingId: string): MeetingRow {
    const row = this.repo.findById(meetingId);
    if (!row) throw AppError.notFound(`Meeting ${meetingId}`);
    return row;
  }

  /** The API form of a stored meeting. */
  view(row: MeetingRow): Meeting {
    return {
      id: row.id,
      code: row.code,
      title: row.title,
      kind: row.kind,
      slug: row.slug,
      scheduled_at: row.scheduled_at,
      duration_minutes: row.duration_minutes,
      time_zone: row.time_zone,
      settings: {
        waiting_room: row.waiting_room === 1,
        transcription_auto: row.transcription_auto === 1,
        join_before_start_minutes: row.join_before_start_minutes,
        recording_layout: row.recording_layout,
        captions: row.captions === 1,
      },
      status: row.status,
      join_url: `${this.baseUrl}/m/${row.code}`,
      organization_id: row.organization_id,
      created_at: row.created_at,
      updated_at: row.updated_at,
      started_at: row.started_at,
      ended_at: row.ended_at,
    };
  }

  private closed(meeting: Meeting): Meeting {
    for (const listener of this.closedListeners) listener(meeting);
    return meeting;
  }

  private apply(row: MeetingRow, changes: MeetingChanges): Meeting {
    if (!this.repo.update(row.id, row.status, changes)) {
      throw AppError.conflict(`Meeting ${row.code} changed while this request ran; retry it`);
    }
    return this.view({ ...row, ...changes });
  }
}

/** The meeting as events carry it in `data.meeting`. */
export function meetingRef(m: Pick<Meeting, 'id' | 'code' | 'title' | 'status' | 'started_at' | 'ended_at'>) {
  return { id: m.id, code: m.code, title: m.title, status: m.status, started_at: m.started_at, ended_at: m.ended_at };
}

/** The canonical spelling of an IANA time zone name (`asia/tokyo` -> `Asia/Tokyo`); validation_failed for an unknown one. */
export function canonicalTimeZone(name: string): string {
  try {
    // Newer engines take offsets like "+09:00" as zones; an offset has no name or daylight saving, so it is refused everywhere.
    if (!/^[A-Za-z]/.test(name)) throw new RangeError(name);
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw AppError.invalid([{ param: 'time_zone', message: 'is not a known IANA time zone (like Europe/Berlin or UTC)' }]);
  }
}

/** When guests may start joining a scheduled meeting (epoch ms): `join_before_start_minutes` before its start. */
export function guestsMayJoinFrom(row: Pick<MeetingRow, 'scheduled_at_ms' | 'join_before_start_minutes'>): number {
  return row.scheduled_at_ms - row.join_before_start_minutes * 60_000;
}

function instant(value: string, param: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw AppError.invalid([{ param, message: 'is not a real date-time' }]);
  return ms;
}
