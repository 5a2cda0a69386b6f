import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl, type Meeting } from '../api';
import {
  captionsField,
  joinBeforeStartField,
  meetingField,
  meetingPath,
  meetingSample,
  recordingLayoutField,
  timeZoneField,
} from '../meeting-input';
import { meetingFields } from '../output-fields';
import { meetingBody } from './create_meeting';

/** PATCHes the inputs given (settings merged by svc); refuses to send an empty change. */
export async function updateMeeting(z: ZObject, bundle: Bundle): Promise<Meeting> {
  const body = Object.fromEntries(Object.entries(meetingBody(z, bundle)).filter(([, value]) => value !== undefined));
  if (Object.keys(body).length === 0) throw new z.errors.Error('Give at least one field to change', 'invalid_input', 400);
  const response = await z.request<Meeting>({ url: apiUrl(bundle, meetingPath(z, bundle)), method: 'PATCH', body });
  return response.data;
}

/** Action: change a meeting's title, time, duration, time zone or settings. */
export default defineCreate({
  key: 'update_meeting',
  noun: 'Meeting',
  display: {
    label: 'Update Meeting',
    description: 'Changes a meeting’s title, start time, duration, time zone or settings; empty fields stay as they are.',
  },
  operation: {
    inputFields: [
      meetingField,
      { key: 'title', label: 'Title', type: 'string', required: false, helpText: '1 to 200 characters.' },
      { key: 'scheduled_at', label: 'Start Time', type: 'datetime', required: false },
      { key: 'duration_minutes', label: 'Duration (Minutes)', type: 'integer', required: false, helpText: '1 to 1440.' },
      timeZoneField,
      { key: 'waiting_room', label: 'Waiting Room', type: 'boolean', required: false },
      { key: 'transcription_auto', label: 'Transcribe Automatically', type: 'boolean', required: false },
      joinBeforeStartField,
      recordingLayoutField,
      captionsField,
    ],
    perform: updateMeeting,
    sample: meetingSample,
    outputFields: meetingFields,
  },
});
