import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl, type Meeting } from '../api';
import { meetingField, meetingPath, meetingSample } from '../meeting-input';
import { meetingFields } from '../output-fields';

/** Ends a live meeting for everyone (PATCH `{"status": "ended"}`); svc answers 409 for a meeting that is not live. */
export async function endMeeting(z: ZObject, bundle: Bundle): Promise<Meeting> {
  const response = await z.request<Meeting>({ url: apiUrl(bundle, meetingPath(z, bundle)), method: 'PATCH', body: { status: 'ended' } });
  return response.data;
}

/** Action: end a live meeting for everyone in it. */
export default defineCreate({
  key: 'end_meeting',
  noun: 'Meeting',
  display: { label: 'End Meeting', description: 'Ends a live meeting for everyone in it.' },
  operation: {
    inputFields: [meetingField],
    perform: endMeeting,
    sample: { ...meetingSample, status: 'ended', started_at: '2026-05-12T09:31:02.000Z', ended_at: '2026-05-12T10:14:40.000Z' },
    outputFields: meetingFields,
  },
});
