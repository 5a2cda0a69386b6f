import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl, type Meeting } from '../api';
import { optionalFlag, optionalInteger, optionalText } from '../input';
import { meetingFields } from '../output-fields';

/** The body of POST /meetings from the action's input; empty inputs are left out so svc applies its defaults. */
export function meetingBody(z: ZObject, bundle: Bundle): Record<string, unknown> {
  const input = bundle.inputData;
  const waiting_room = optionalFlag(z, 'waiting_room', input.waiting_room);
  const transcription_auto = optionalFlag(z, 'transcription_auto', input.transcription_auto);
  return {
    title: optionalText(input.title),
    scheduled_at: optionalText(input.scheduled_at),
    duration_minutes: optionalInteger(z, 'duration_minutes', input.duration_minutes),
    settings: waiting_room === undefined && transcription_auto === undefined ? undefined : { waiting_room, transcription_auto },
  };
}

/** Creates the meeting and returns svc's record of it. */
export async function createMeeting(z: ZObject, bundle: Bundle): Promise<Meeting> {
  const response = await z.request<Meeting>({ url: apiUrl(bundle, '/meetings'), method: 'POST', body: meetingBody(z, bundle) });
  return response.data;
}

/** Action: create a meeting, scheduled or starting now, and get its join link. */
export default defineCreate({
  key: 'create_meeting',
  noun: 'Meeting',
  display: {
    label: 'Create Meeting',
    description: 'Creates a meeting, scheduled or starting now, and returns its join link.',
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
    ],
    perform: createMeeting,
    sample: {
      id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
      code: 'kpw-rtbn-fqe',
      title: 'Design review',
      kind: 'meeting',
      slug: null,
      scheduled_at: '2026-05-12T11:30:00+02:00',
      duration_minutes: 45,
      settings: { waiting_room: true, transcription_auto: true },
      status: 'scheduled',
      join_url: 'https://meet.example.com/m/kpw-rtbn-fqe',
      organization_id: 'org_01kr0a3c5e7g9j2m4p6r8t0w1y',
      created_at: '2026-05-11T16:04:27.000Z',
      updated_at: '2026-05-11T16:04:27.000Z',
      started_at: null,
      ended_at: null,
    },
    outputFields: meetingFields,
  },
});
