import type { IDataObject, INodeProperties } from 'n8n-workflow';

/** Fields a meeting can be created or updated with. */
export const meetingFields: INodeProperties[] = [
  {
    displayName: 'Duration (Minutes)',
    name: 'durationMinutes',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 1440 },
    default: 60,
    description: 'Planned length of the meeting',
  },
  {
    displayName: 'Guests May Join Minutes Before Start',
    name: 'joinBeforeStartMinutes',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: 10080, numberPrecision: 0 },
    default: 10,
    description: 'Guests may join this many minutes before the start, 0 to 10080 (a week); hosts may always open the room early',
  },
  {
    displayName: 'Live Captions',
    name: 'captions',
    type: 'boolean',
    default: false,
    description: 'Whether live captions (speech-to-text on svc) are on from the start; a host can turn them off or on in the room',
  },
  {
    displayName: 'Recording Layout',
    name: 'recordingLayout',
    type: 'options',
    options: [
      { name: 'Active Speaker', value: 'active_speaker', description: 'The active speaker on stage' },
      { name: 'Grid', value: 'grid', description: 'Every participant in a grid' },
    ],
    default: 'active_speaker',
    description: "The layout of the recording's composite MP4; a screen share is on stage while shared in both",
  },
  {
    displayName: 'Scheduled At',
    name: 'scheduledAt',
    type: 'string',
    default: '',
    placeholder: '2026-12-01T10:00:00+02:00',
    description: 'Start time, ISO 8601 with a UTC offset; a meeting created without one starts now',
  },
  {
    displayName: 'Time Zone',
    name: 'timeZone',
    type: 'string',
    default: '',
    placeholder: 'Europe/Berlin',
    description:
      'IANA time zone, e.g. Europe/Berlin, the meeting is planned in: its times and calendar invitations are shown in it; the start time stays the instant given',
  },
  {
    displayName: 'Transcribe Automatically',
    name: 'transcriptionAuto',
    type: 'boolean',
    default: false,
    description: 'Whether to record and transcribe automatically when the meeting starts',
  },
  {
    displayName: 'Waiting Room',
    name: 'waitingRoom',
    type: 'boolean',
    default: false,
    description: 'Whether guests wait until a host admits them',
  },
];

/** The svc request body for the meeting fields the user set. */
export function meetingBody(fields: IDataObject): IDataObject {
  const body: IDataObject = {};
  if (typeof fields.title === 'string') body.title = fields.title;
  if (typeof fields.scheduledAt === 'string' && fields.scheduledAt !== '') body.scheduled_at = fields.scheduledAt;
  if (typeof fields.durationMinutes === 'number') body.duration_minutes = fields.durationMinutes;
  if (typeof fields.timeZone === 'string' && fields.timeZone.trim() !== '') body.time_zone = fields.timeZone.trim();
  const settings: IDataObject = {};
  if (typeof fields.waitingRoom === 'boolean') settings.waiting_room = fields.waitingRoom;
  if (typeof fields.transcriptionAuto === 'boolean') settings.transcription_auto = fields.transcriptionAuto;
  if (typeof fields.joinBeforeStartMinutes === 'number') settings.join_before_start_minutes = fields.joinBeforeStartMinutes;
  if (typeof fields.recordingLayout === 'string') settings.recording_layout = fields.recordingLayout;
  if (typeof fields.captions === 'boolean') settings.captions = fields.captions;
  if (Object.keys(settings).length > 0) body.settings = settings;
  return body;
}
