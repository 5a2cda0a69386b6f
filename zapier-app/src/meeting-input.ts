import type { Bundle, ZObject } from 'zapier-platform-core';
import { apiUrl, type Meeting } from './api';
import { optionalText } from './input';
import { raiseProblem } from './middleware';

/** The input naming a meeting by its id or code. */
export const meetingField = {
  key: 'meeting',
  label: 'Meeting',
  type: 'string' as const,
  required: true,
  helpText: 'The meeting’s ID (`mtg_...`) or its code (`abc-defg-hij`), e.g. mapped from a trigger or a Find Meeting step.',
};

/** The optional time zone input of Create and Update Meeting. */
export const timeZoneField = {
  key: 'time_zone',
  label: 'Time Zone',
  type: 'string' as const,
  required: false,
  helpText:
    'IANA time zone, e.g. `Europe/Berlin`, that the meeting is planned in: its times and calendar invitations are shown in it. The start time stays the instant you give.',
};

/** The optional input of Create and Update Meeting: how early guests may join. */
export const joinBeforeStartField = {
  key: 'join_before_start_minutes',
  label: 'Guests May Join Minutes Before the Start',
  type: 'integer' as const,
  required: false,
  helpText:
    'Guests may join this many minutes before the start time, from 0 to 10080 (a week). svc uses 10 when empty. Hosts may always open the room early.',
};

/** The optional input of Create and Update Meeting: the layout of the recording's composite MP4. */
export const recordingLayoutField = {
  key: 'recording_layout',
  label: 'Recording Layout',
  type: 'string' as const,
  required: false,
  choices: { active_speaker: 'Active speaker', grid: 'Grid (every participant)' },
  helpText:
    'The layout of the recording’s composite MP4: the active speaker on stage, or every participant in a grid; a screen share is on stage while shared in both. svc uses Active speaker when empty.',
};

/** The optional input of Create and Update Meeting: live captions on from the start. */
export const captionsField = {
  key: 'captions',
  label: 'Live Captions',
  type: 'boolean' as const,
  required: false,
  helpText: 'Live captions (speech-to-text on svc) are on from the start; a host can turn them off or on in the room.',
};

const recordingLayouts = new Set(Object.keys(recordingLayoutField.choices));

/** The Recording Layout input, or undefined when empty; anything but a known layout is refused before svc is asked. */
export function optionalRecordingLayout(z: ZObject, value: unknown): string | undefined {
  const layout = optionalText(value);
  if (layout === undefined || recordingLayouts.has(layout)) return layout;
  throw new z.errors.Error('recording_layout must be active_speaker or grid', 'invalid_input', 400);
}

/** The meeting path of the `meeting` input: `/meetings/{id or code}`, the code also accepted as a join URL. */
export function meetingPath(z: ZObject, bundle: Bundle, suffix = ''): string {
  const raw = optionalText(bundle.inputData.meeting);
  if (raw === undefined) throw new z.errors.Error('meeting must be a meeting ID or code', 'invalid_input', 400);
  const ref = /\/m\/([a-z]{3}-[a-z]{4}-[a-z]{3})(?:[/?#]|$)/.exec(raw)?.[1] ?? raw;
  return `/meetings/${encodeURIComponent(ref)}${suffix}`;
}

/** GET of a meeting-scoped resource that answers 404 until it exists: the record, or null for a 404. */
export async function getOrNull<T>(z: ZObject, bundle: Bundle, path: string): Promise<T | null> {
  const response = await z.request<T>({ url: apiUrl(bundle, path), skipThrowForStatus: true });
  if (response.status === 404) return null;
  if (response.status >= 400) raiseProblem(z, response);
  return response.data;
}

/** A meeting record as the sample of the meeting actions and searches. */
export const meetingSample: Meeting & Record<string, unknown> = {
  id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
  code: 'kpw-rtbn-fqe',
  title: 'Design review',
  kind: 'meeting',
  slug: null,
  scheduled_at: '2026-05-12T11:30:00+02:00',
  duration_minutes: 45,
  time_zone: 'Europe/Berlin',
  settings: {
    waiting_room: true,
    transcription_auto: true,
    join_before_start_minutes: 10,
    recording_layout: 'active_speaker',
    captions: false,
  },
  status: 'scheduled',
  join_url: 'https://meet.example.com/m/kpw-rtbn-fqe',
  organization_id: 'org_01kr0a3c5e7g9j2m4p6r8t0w1y',
  created_at: '2026-05-11T16:04:27.000Z',
  updated_at: '2026-05-11T16:04:27.000Z',
  started_at: null,
  ended_at: null,
};
