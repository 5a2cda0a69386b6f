import type { PlainOutputField } from 'zapier-platform-core';

/** The envelope every event has: id, type and time. */
export const eventFields: PlainOutputField[] = [
  { key: 'id', label: 'Event ID', type: 'string' },
  { key: 'type', label: 'Event Type', type: 'string' },
  { key: 'created_at', label: 'Event Time', type: 'datetime' },
];

/** `data.meeting`, on every event. */
export const eventMeetingFields: PlainOutputField[] = [
  { key: 'data__meeting__id', label: 'Meeting ID', type: 'string' },
  { key: 'data__meeting__code', label: 'Meeting Code', type: 'string' },
  { key: 'data__meeting__title', label: 'Meeting Title', type: 'string' },
  { key: 'data__meeting__status', label: 'Meeting Status', type: 'string' },
  { key: 'data__meeting__started_at', label: 'Meeting Started At', type: 'datetime' },
  { key: 'data__meeting__ended_at', label: 'Meeting Ended At', type: 'datetime' },
];

/** `data.recording`, on recording.ready. */
export const recordingFields: PlainOutputField[] = [
  { key: 'data__recording__id', label: 'Recording ID', type: 'string' },
  { key: 'data__recording__meeting_id', label: 'Recording Meeting ID', type: 'string' },
  { key: 'data__recording__kind', label: 'Recording Kind (video: the composite MP4)', type: 'string' },
  { key: 'data__recording__status', label: 'Recording Status', type: 'string' },
  { key: 'data__recording__duration_seconds', label: 'Recording Duration (Seconds)', type: 'integer' },
  { key: 'data__recording__size_bytes', label: 'Recording Size (Bytes)', type: 'integer' },
  { key: 'data__recording__content_type', label: 'Recording Content Type', type: 'string' },
  { key: 'data__recording__download_url', label: 'Recording Download URL (signed, works without the API key for 24 h)', type: 'string' },
  { key: 'data__recording__created_at', label: 'Recording Created At', type: 'datetime' },
  { key: 'data__recording__ready_at', label: 'Recording Ready At', type: 'datetime' },
  { key: 'data__recording__failure_reason', label: 'Recording Failure Reason (empty unless it failed)', type: 'string' },
  {
    key: 'data__recording__source_recording_id',
    label: 'Source Recording ID (the per-track recording it was rendered from)',
    type: 'string',
  },
  { key: 'data__recording__breakout_room_id', label: 'Recording Breakout Room ID (empty for the main room)', type: 'string' },
  { key: 'data__recording__tracks', label: 'Recording Tracks (empty for the composite)', type: 'string' },
];

/** `data.transcript`, on transcript.ready, with the full text and segments the trigger reads from the API. */
export const transcriptFields: PlainOutputField[] = [
  { key: 'data__transcript__breakout_room_id', label: 'Transcript Breakout Room ID (empty for the meeting’s transcript)', type: 'string' },
  { key: 'data__transcript__language', label: 'Transcript Language', type: 'string' },
  { key: 'data__transcript__segment_count', label: 'Transcript Segment Count', type: 'integer' },
  { key: 'data__transcript__speakers[]name', label: 'Speaker Name', type: 'string' },
  { key: 'data__transcript__speakers[]participant_id', label: 'Speaker Participant ID', type: 'string' },
  { key: 'data__transcript__text', label: 'Transcript Text', type: 'string' },
  { key: 'data__transcript__segments[]start', label: 'Segment Start (Seconds)', type: 'number' },
  { key: 'data__transcript__segments[]end', label: 'Segment End (Seconds)', type: 'number' },
  { key: 'data__transcript__segments[]speaker', label: 'Segment Speaker', type: 'string' },
  { key: 'data__transcript__segments[]participant_id', label: 'Segment Speaker Participant ID', type: 'string' },
  { key: 'data__transcript__segments[]text', label: 'Segment Text', type: 'string' },
];

/** `data.summary`, on summary.ready, with the decisions and action items (line items) the trigger reads from the API. */
export const summaryFields: PlainOutputField[] = [
  { key: 'data__summary__tldr', label: 'Summary TL;DR', type: 'string' },
  { key: 'data__summary__decisions[]text', label: 'Decision', type: 'string' },
  { key: 'data__summary__action_items[]text', label: 'Action Item', type: 'string' },
  { key: 'data__summary__action_items[]owner', label: 'Action Item Owner', type: 'string' },
  { key: 'data__summary__action_items[]due', label: 'Action Item Due', type: 'string' },
  { key: 'data__summary__decisions_text', label: 'Decisions (Text)', type: 'string' },
  { key: 'data__summary__action_items_text', label: 'Action Items (Text)', type: 'string' },
  { key: 'data__summary__generator', label: 'Summary Generator', type: 'string' },
];

/** `data.registration` and `data.webinar`, on registration.created. */
export const registrationEventFields: PlainOutputField[] = [
  { key: 'data__registration__id', label: 'Registration ID', type: 'string' },
  { key: 'data__registration__email', label: 'Registrant Email', type: 'string' },
  { key: 'data__registration__name', label: 'Registrant Name', type: 'string' },
  { key: 'data__registration__join_url', label: 'Registrant Join URL', type: 'string' },
  { key: 'data__registration__created_at', label: 'Registered At', type: 'datetime' },
  { key: 'data__webinar__slug', label: 'Webinar Slug', type: 'string' },
  { key: 'data__webinar__title', label: 'Webinar Title', type: 'string' },
  { key: 'data__webinar__meeting_id', label: 'Webinar Meeting ID', type: 'string' },
];

/** A meeting record as POST /meetings returns it. */
export const meetingFields: PlainOutputField[] = [
  { key: 'id', label: 'Meeting ID', type: 'string' },
  { key: 'code', label: 'Code', type: 'string' },
  { key: 'title', label: 'Title', type: 'string' },
  { key: 'kind', label: 'Kind', type: 'string' },
  { key: 'slug', label: 'Webinar Slug', type: 'string' },
  { key: 'scheduled_at', label: 'Scheduled At', type: 'datetime' },
  { key: 'duration_minutes', label: 'Duration (Minutes)', type: 'integer' },
  { key: 'time_zone', label: 'Time Zone (IANA name, e.g. Europe/Berlin; empty when none was given)', type: 'string' },
  { key: 'settings__waiting_room', label: 'Waiting Room', type: 'boolean' },
  { key: 'settings__transcription_auto', label: 'Automatic Transcription', type: 'boolean' },
  { key: 'settings__join_before_start_minutes', label: 'Guests May Join Minutes Before the Start', type: 'integer' },
  { key: 'settings__recording_layout', label: 'Recording Layout (active_speaker or grid)', type: 'string' },
  { key: 'settings__captions', label: 'Live Captions From the Start', type: 'boolean' },
  { key: 'status', label: 'Status', type: 'string' },
  { key: 'join_url', label: 'Join URL', type: 'string' },
  { key: 'organization_id', label: 'Organization ID', type: 'string' },
  { key: 'created_at', label: 'Created At', type: 'datetime' },
  { key: 'updated_at', label: 'Updated At', type: 'datetime' },
  { key: 'started_at', label: 'Started At', type: 'datetime' },
  { key: 'ended_at', label: 'Ended At', type: 'datetime' },
];

/** A registration as POST /webinars/{slug}/registrations returns it, plus whether the email was already registered. */
export const registrationFields: PlainOutputField[] = [
  { key: 'id', label: 'Registration ID', type: 'string' },
  { key: 'email', label: 'Email', type: 'string' },
  { key: 'name', label: 'Name', type: 'string' },
  { key: 'join_url', label: 'Personal Join URL', type: 'string' },
  { key: 'created_at', label: 'Registered At', type: 'datetime' },
  { key: 'webinar__slug', label: 'Webinar Slug', type: 'string' },
  { key: 'webinar__title', label: 'Webinar Title', type: 'string' },
  { key: 'webinar__meeting_id', label: 'Webinar Meeting ID', type: 'string' },
  { key: 'already_registered', label: 'Was Already Registered', type: 'boolean' },
];
