import { AppError } from '../shared/errors';
import type { Scope } from '../keys/scopes';

/** The six event types, in the spec's order. */
export const EVENT_TYPES = [
  'meeting.started',
  'meeting.ended',
  'recording.ready',
  'transcript.ready',
  'summary.ready',
  'registration.created',
] as const;

/** One of the six event types. */
export type EventType = (typeof EVENT_TYPES)[number];

/** The scope that reads each event type, matching the REST endpoint that reads the same data. */
export const EVENT_SCOPES: Record<EventType, Scope> = {
  'meeting.started': 'meetings:read',
  'meeting.ended': 'meetings:read',
  'recording.ready': 'recordings:read',
  'transcript.ready': 'transcripts:read',
  'summary.ready': 'transcripts:read',
  'registration.created': 'webinars:write',
};

/** True when `value` names an event type. */
export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The event types a key with `scopes` may read. */
export function readableEventTypes(scopes: readonly Scope[]): EventType[] {
  return EVENT_TYPES.filter((type) => scopes.includes(EVENT_SCOPES[type]));
}

/** Throws 403 unless `scopes` can read every one of `types` (subscribing to events needs what reading them needs). */
export function assertCanSubscribe(scopes: readonly Scope[], types: readonly EventType[]): void {
  const missing = types.map((t) => EVENT_SCOPES[t]).find((scope) => !scopes.includes(scope));
  if (missing) {
    throw AppError.missingScope(missing, `Subscribing to these events needs the ${missing} scope`);
  }
}
