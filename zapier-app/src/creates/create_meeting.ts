import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl, type Meeting } from '../api';
import { dedupeField, idempotencyHeader } from '../idempotency';
import { optionalFlag, optionalInteger, optionalText } from '../input';
import {
  captionsField,
  joinBeforeStartField,
  meetingSample,
  optionalRecordingLayout,
  recordingLayoutField,
  timeZoneField,
} from '../meeting-input';
import { meetingFields } from '../output-fields';

/** The title, schedule and settings of POST and PATCH /meetings from the action's input; empty inputs are left out so svc applies its defaults or keeps what it has. */
export function meetingBody(z: ZObject, bundle: Bundle): Record<string, unknown> {
  const input = bundle.inputData;
  const waiting_room = optionalFlag(z, 'waiting_room', input.waiting_room);
  const transcription_auto = optionalFlag(z, 'transcription_auto', input.transcription_auto);
  const join_before_start_minutes = optionalInteger(z, 'join_before_start_minutes', input.join_before_start_minutes);
  const recording_layout = optionalRecordingLayout(z, input.recording_layout);
  const captions = optionalFlag(z, 'captions', input.captions);
  const settings = Object.fromEntries(
    Object.entries({ waiting_room, transcription_auto, join_before_start_minutes, recording_layout, captions }).filter(
      ([, value]) => value !== undefined,
    ),
  );
  return {
    title: optionalText(input.title),
    scheduled_at: optionalText(input.scheduled_at),
    duration_minutes: optionalInteger(z, 'duration_minutes', input.duration_minutes),
    time_zone: optionalText(input.time_zone),
    settings: Object.keys(settings).length === 0 ? undefined : settings,
  };
}

/** The body of POST /meetings: a webinar when Kind is webinar (its slug required). */
export function createBody(z: ZObject, bundle: Bundle): Record<string, unknown> {
  const kind = optionalText(bundle.inputData.kind) ?? 'meeting';
  if (kind !== 'meeting' && kind !== 'webinar') throw new z.errors.Error('kind must be meeting or webinar', 'invalid_input', 400);
  const slug = optionalText(bundle.inputData.slug);
  if (kind === 'webinar' && slug === undefined) throw new z.errors.Error('slug is required for a webinar', 'invalid_input', 400);
  return { ...meetingBody(z, bundle), ...(kind === 'webinar' ? { kind, slug } : {}) };
}

/**
 * Creates the meeting and returns svc's record of it. The Idempotency-Key names the creation when the Zap says which:
 * a Deduplication ID, or a start time (the same title at the same time in the same Zap is one meeting). An instant
 * meeting without a Deduplication ID sends none, since two runs with the same title are then two meetings.
 */
export async function createMeeting(z: ZObject, bundle: Bundle): Promise<Meeting> {
  const body = createBody(z, bundle);
  const dedupe = optionalText(bundle.inputData.dedupe_id);
  const parts = dedupe !== undefined ? ['dedupe', dedupe] : body.scheduled_at !== undefined ? ['body', body] : null;
  const response = await z.request<Meeting>({
    url: apiUrl(bundle, '/meetings'),
    method: 'POST',
    body,
    headers: idempotencyHeader(bundle, 'create_meeting', parts),
  });
  return response.data;
}

/** Action: create a meeting, scheduled or starting now, and get its join link. */
export default defineCreate({
  key: 'create_meeting',
  noun: 'Meeting',
  display: {
    label: 'Create Meeting',
    description: 'Creates a meeting or a webinar, scheduled or starting now, and returns its join link.',
  },
  operation: {
    inputFields: [
      { key: 'title', label: 'Title', type: 'string', required: true, helpText: 'What participants see, 1 to 200 characters.' },
      {
        key: 'scheduled_at',
        label: 'Start Time',
        type: 'datetime',
        required: false,
        helpText: 'When the meeting starts. Leave empty for an instant meeting that starts now.',
      },
      {
        key: 'duration_minutes',
        label: 'Duration (Minutes)',
        type: 'integer',
        required: false,
        default: '60',
        helpText: 'Planned length, from 1 to 1440 minutes. 60 when empty.',
      },
      timeZoneField,
      {
        key: 'waiting_room',
        label: 'Waiting Room',
        type: 'boolean',
        required: false,
        default: 'false',
        helpText: 'Guests wait until a host admits them.',
      },
      {
        key: 'transcription_auto',
        label: 'Transcribe Automatically',
        type: 'boolean',
        required: false,
        default: 'false',
        helpText: 'Record and transcribe automatically when the meeting starts; the transcript and summary triggers fire afterwards.',
      },
      { ...joinBeforeStartField, default: '10' },
      { ...recordingLayoutField, default: 'active_speaker' },
      { ...captionsField, default: 'false' },
      {
        key: 'kind',
        label: 'Kind',
        type: 'string',
        required: false,
        default: 'meeting',
        choices: { meeting: 'Meeting', webinar: 'Webinar (people register for it)' },
        helpText: 'A webinar takes registrations under its slug.',
      },
      {
        key: 'slug',
        label: 'Webinar Slug',
        type: 'string',
        required: false,
        helpText:
          'Webinars only: the name registrations use (`/webinars/{slug}/registrations`), e.g. `spring-launch`; unique in your organization.',
      },
      dedupeField,
    ],
    perform: createMeeting,
    sample: meetingSample,
    outputFields: meetingFields,
  },
});
