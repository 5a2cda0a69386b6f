import type { Principal } from '../identity/identity.service';
import { AppError } from '../shared/errors';
import { isoAt, type Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import { readableEventTypes, type EventType } from './event-types';
import type { EventRow, EventsRepo } from './events.repo';

/** The event envelope of the feed and of webhooks. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
}

/** Something written in the same transaction as each event: the webhook outbox, chat notifiers. */
export interface EventSubscriber {
  /** Called inside the emitting transaction; what it writes commits or rolls back with the event. */
  enqueue(event: EventRow): void;
}

/** One page of the feed. */
export interface FeedPage {
  data: EventEnvelope[];
  next_cursor: string | null;
}

/** What a feed query asks for. */
export interface FeedQuery {
  types: EventType[];
  since?: string;
  limit: number;
  slug?: string;
}

const EVENT_ID = /^evt_[0-9a-z]{26}$/;

/** Writes events (the transactional outbox's source) and reads them back as a feed. */
export class EventsService {
  private readonly subscribers: EventSubscriber[] = [];
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly repo: EventsRepo,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {
    const newest = repo.newestId();
    if (newest) ids.observe(newest);
  }

  /** Adds a subscriber that writes its own rows for each event, in the event's transaction. */
  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /** Adds a listener told (after the current synchronous work, so after the commit) that events were written. */
  onEmitted(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Records an event; call it inside the transaction that makes the change it describes. */
  emit(organizationId: string, type: EventType, data: Record<string, unknown>, opts: { slug?: string } = {}): EventEnvelope {
    const envelope: EventEnvelope = { id: this.ids.next('evt'), type, created_at: isoAt(this.clock.now()), data };
    const row: EventRow = {
      id: envelope.id,
      organization_id: organizationId,
      type,
      slug: opts.slug ?? null,
      payload: JSON.stringify(envelope),
      created_at: envelope.created_at,
    };
    this.repo.insert(row);
    for (const subscriber of this.subscribers) subscriber.enqueue(row);
    if (this.listeners.length > 0) queueMicrotask(() => this.listeners.forEach((listener) => listener()));
    return envelope;
  }

  /**
   * The feed: without `since`, the newest events newest first; with `since`, the events strictly
   * after it oldest first. `next_cursor` is the newest id the caller has now seen.
   */
  feed(principal: Principal, query: FeedQuery): FeedPage {
    const readable = readableEventTypes(principal.key.scopes);
    const types = query.types.filter((t) => readable.includes(t));
    if (query.since !== undefined && !EVENT_ID.test(query.since)) {
      throw AppError.invalid([{ param: 'since', message: 'must be an event id (evt_...)' }]);
    }
    if (types.length === 0) return { data: [], next_cursor: query.since ?? null };
    const filters = principal.organizations.map((o) => ({ organizationId: o.id, types, slug: query.slug }));
    if (query.since !== undefined) {
      const since = query.since;
      const rows = mergeRows(
        filters.map((f) => this.repo.after(f, since, query.limit)),
        'asc',
        query.limit,
      );
      return { data: rows.map(envelopeOf), next_cursor: rows.at(-1)?.id ?? since };
    }
    const rows = mergeRows(
      filters.map((f) => this.repo.latest(f, query.limit)),
      'desc',
      query.limit,
    );
    return { data: rows.map(envelopeOf), next_cursor: rows[0]?.id ?? null };
  }
}

/** The envelope of a stored event. */
export function envelopeOf(row: EventRow): EventEnvelope {
  return JSON.parse(row.payload) as EventEnvelope;
}

function mergeRows(lists: EventRow[][], order: 'asc' | 'desc', limit: number): EventRow[] {
  const all = lists.length === 1 ? lists[0]! : lists.flat().sort((a, b) => (a.id < b.id ? -1 : 1));
  if (lists.length > 1 && order === 'desc') all.reverse();
  return all.slice(0, limit);
}
