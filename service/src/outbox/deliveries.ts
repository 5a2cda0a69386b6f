import type { EventType } from '../events/event-types';
import type { PageRequest } from '../shared/paging';
import { isoAt } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { AttemptRow, DeliveriesRepo, DeliveryRow, DestinationKind } from './deliveries.repo';
import type { DestinationRow, DestinationsRepo } from './destinations.repo';

/** A delivery with its attempts, as the API returns it. */
export interface Delivery {
  id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryRow['status'];
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
  attempts: Omit<AttemptRow, 'id' | 'delivery_id'>[];
}

/** A pending delivery of an event to a destination, due at `now`. */
export function newDelivery(
  ids: IdGenerator,
  kind: DestinationKind,
  event: { id: string; organization_id: string },
  destinationId: string,
  now: number,
): DeliveryRow {
  return {
    id: ids.next('dlv'),
    event_id: event.id,
    destination_kind: kind,
    destination_id: destinationId,
    organization_id: event.organization_id,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    lease_until: null,
    created_at: isoAt(now),
    completed_at: null,
  };
}

/** The API form of a stored delivery. */
export function deliveryView(row: DeliveryRow, eventType: EventType, attempts: AttemptRow[]): Delivery {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: eventType,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.status === 'pending' && row.next_attempt_at !== null ? isoAt(row.next_attempt_at) : null,
    created_at: row.created_at,
    completed_at: row.completed_at,
    attempts: attempts.map(({ id: _id, delivery_id: _delivery, ...attempt }) => attempt),
  };
}

/** Up to `page.limit + 1` deliveries of a destination, newest first, each with its attempts. */
export function deliveriesOf(repo: DeliveriesRepo, destinationId: string, page: PageRequest): Delivery[] {
  const rows = repo.listForDestination(destinationId, page.after, page.limit + 1);
  const attempts = repo.attemptsOf(rows.map((r) => r.id));
  return rows.map((row) =>
    deliveryView(
      row,
      row.event_type,
      attempts.filter((a) => a.delivery_id === row.id),
    ),
  );
}

/** Queues one pending delivery, due at `now`, for each enabled destination of the event's organization that subscribes to its type. */
export function queueForSubscribers(
  destinations: DestinationsRepo<DestinationRow>,
  deliveries: DeliveriesRepo,
  ids: IdGenerator,
  event: { id: string; organization_id: string; type: EventType },
  now: number,
): void {
  for (const { id, kind } of destinations.subscribedTo(event.organization_id, event.type)) {
    deliveries.insert(newDelivery(ids, kind, event, id, now));
  }
}
