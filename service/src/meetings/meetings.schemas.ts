import type { JsonSchema } from '../shared/validation';

/** How early guests may join a scheduled meeting: the default and the largest value of `settings.join_before_start_minutes`. */
export const JOIN_BEFORE_START = { defaultMinutes: 10, maxMinutes: 7 * 24 * 60 } as const;

const settings: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    waiting_room: { type: 'boolean', description: 'Guests wait until a host admits them.' },
    transcription_auto: { type: 'boolean', description: 'Record and transcribe automatically when the meeting starts.' },
    recording_layout: {
      type: 'string',
      enum: ['active_speaker', 'grid'],
      description:
        "The recording's composite MP4: the active speaker on stage (default), or every participant in a grid; a screen share is on stage while shared in both.",
    },
    captions: {
      type: 'boolean',
      description:
        'Live captions (speech-to-text on the service, offline) are on from the start; a host can turn them off or on in the room.',
    },
    join_before_start_minutes: {
      type: 'integer',
      minimum: 0,
      maximum: JOIN_BEFORE_START.maxMinutes,
      description: `How many minutes before \`scheduled_at\` guests and registrants may join (default ${JOIN_BEFORE_START.defaultMinutes}); earlier, the room page shows the start time and joins by itself once it opens. Hosts may always open the room early.`,
    },
  },
};

const title: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S', format: 'single-line' };
const scheduledAt: JsonSchema = {
  type: 'string',
  format: 'date-time',
  description: 'RFC 3339 date-time with a UTC offset (`T` between date and time, `+02:00` or `Z`); returned exactly as sent.',
  examples: ['2026-05-01T09:00:00+02:00'],
};
const duration: JsonSchema = { type: 'integer', minimum: 1, maximum: 1440 };
const timeZone: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description:
    'IANA time zone the meeting is planned in (`Asia/Tokyo`, `UTC`), for showing its times and calendar invitations; `scheduled_at` stays the instant. Names are matched case-insensitively and returned in their canonical spelling.',
  examples: ['Europe/Berlin'],
};

/** Body of POST /meetings. */
export const createMeetingSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['title'],
  properties: {
    title,
    scheduled_at: { ...scheduledAt, description: 'Start time; absent means an instant meeting starting now.' },
    duration_minutes: { ...duration, default: 60 },
    time_zone: timeZone,
    settings,
    kind: { type: 'string', enum: ['meeting', 'webinar'], default: 'meeting' },
    slug: {
      type: 'string',
      pattern: '^[a-z0-9](?:[a-z0-9-]{1,62}[a-z0-9])$',
      description: "Webinars only: the public name used in /webinars/{slug}/registrations. 3-64 of a-z, 0-9 and '-'.",
    },
    organization_id: {
      type: 'string',
      description: 'Organization to create the meeting in; defaults to the key’s organization (or the first one it can act in).',
    },
  },
};

/** The settings a create or update may give (an update merges them into the current ones). */
export interface MeetingSettingsInput {
  waiting_room?: boolean;
  transcription_auto?: boolean;
  join_before_start_minutes?: number;
  recording_layout?: 'active_speaker' | 'grid';
  captions?: boolean;
}

/** Body of POST /meetings after validation. */
export interface CreateMeetingInput {
  title: string;
  scheduled_at?: string;
  duration_minutes?: number;
  time_zone?: string;
  settings?: MeetingSettingsInput;
  kind?: 'meeting' | 'webinar';
  slug?: string;
  organization_id?: string;
}

/** Body of PATCH /meetings/{id}. */
export const updateMeetingSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    title,
    scheduled_at: scheduledAt,
    duration_minutes: duration,
    time_zone: { ...timeZone, type: ['string', 'null'], description: `${timeZone.description} \`null\` removes it.` },
    settings: { ...settings, description: 'Merged into the current settings.' },
    status: {
      type: 'string',
      enum: ['ended'],
      description: '`ended` ends a live meeting for everyone. To open an ended meeting again use POST /meetings/{id}/reopen.',
    },
  },
};

/** Body of PATCH /meetings/{id} after validation. */
export interface UpdateMeetingInput {
  title?: string;
  scheduled_at?: string;
  duration_minutes?: number;
  time_zone?: string | null;
  settings?: MeetingSettingsInput;
  status?: 'ended';
}

/** Body of POST /meetings/{id}/reopen: nothing (an empty object or no body). */
export const reopenMeetingSchema: JsonSchema = { type: 'object', additionalProperties: false, properties: {} };

/** The meeting resource as the API returns it. */
export const meetingSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'code',
    'title',
    'kind',
    'slug',
    'scheduled_at',
    'duration_minutes',
    'time_zone',
    'settings',
    'status',
    'join_url',
    'organization_id',
    'created_at',
    'updated_at',
    'started_at',
    'ended_at',
  ],
  properties: {
    id: { type: 'string', examples: ['mtg_01jd8x3k2m0000000000000000'] },
    code: { type: 'string', pattern: '^[a-z]{3}-[a-z]{4}-[a-z]{3}$', examples: ['abc-defg-hij'] },
    title: { type: 'string' },
    kind: { type: 'string', enum: ['meeting', 'webinar'] },
    slug: { type: ['string', 'null'] },
    scheduled_at: { type: 'string', format: 'date-time' },
    duration_minutes: { type: 'integer' },
    time_zone: {
      type: ['string', 'null'],
      description: 'IANA time zone the meeting is planned in; null when it was created without one.',
      examples: ['Asia/Tokyo'],
    },
    settings: {
      type: 'object',
      required: ['waiting_room', 'transcription_auto', 'join_before_start_minutes', 'recording_layout', 'captions'],
      properties: {
        waiting_room: { type: 'boolean' },
        transcription_auto: { type: 'boolean' },
        join_before_start_minutes: { type: 'integer', description: 'Guests may join this many minutes before scheduled_at.' },
        recording_layout: { type: 'string', enum: ['active_speaker', 'grid'] },
        captions: { type: 'boolean', description: 'Live captions are on from the start.' },
      },
    },
    status: { type: 'string', enum: ['scheduled', 'live', 'ended', 'cancelled'] },
    join_url: { type: 'string', format: 'uri' },
    organization_id: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    started_at: { type: ['string', 'null'], format: 'date-time' },
    ended_at: { type: ['string', 'null'], format: 'date-time' },
  },
};
