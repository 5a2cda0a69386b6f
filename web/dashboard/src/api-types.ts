import type { components } from '../generated/public-api';

/** The public API's schemas, generated from the service's OpenAPI document at build time (scripts/api-types.ts). */
type Schema = components['schemas'];

/** A meeting as the API returns it. */
export type Meeting = Schema['Meeting'];
/** A meeting's settings as the API returns them. */
export type MeetingSettings = Meeting['settings'];
/** Someone who joined a meeting's room. */
export type Participant = Schema['Participant'];
/** A meeting's recording (video or audio) and where it stands. */
export type Recording = Schema['Recording'];
/** A poll run in a meeting's room, with its results. */
export type Poll = Schema['Poll'];
/** A breakout room of a meeting, with who was assigned to it. */
export type BreakoutRoom = Schema['BreakoutRoom'];
/** Someone registered for a webinar. */
export type Registration = Schema['Registration'];
/** A meeting's transcript: its text and timed segments. */
export type Transcript = Schema['Transcript'];
/** A meeting's summary: the gist, decisions and action items. */
export type Summary = Schema['Summary'];
/** A webhook endpoint (its secret only in the answer that created or rotated it). */
export type WebhookEndpoint = Schema['WebhookEndpoint'];
/** A chat or project integration and how its deliveries go. */
export type Integration = Schema['Integration'];
/** One event's delivery to a webhook endpoint or an integration, with its attempts. */
export type Delivery = Schema['Delivery'] | Schema['IntegrationDelivery'];
