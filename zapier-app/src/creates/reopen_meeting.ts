import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl, type Meeting } from '../api';
import { meetingField, meetingPath, meetingSample } from '../meeting-input';
import { meetingFields } from '../output-fields';

/** Puts an ended or cancelled meeting back to scheduled (POST .../reopen); svc returns a scheduled or live meeting unchanged. */
export async function reopenMeeting(z: ZObject, bundle: Bundle): Promise<Meeting> {
  const response = await z.request<Meeting>({ url: apiUrl(bundle, meetingPath(z, bundle, '/reopen')), method: 'POST' });
  return response.data;
}

/** Action: open an ended or cancelled meeting again, with the same join link. */
export default defineCreate({
  key: 'reopen_meeting',
  noun: 'Meeting',
  display: {
    label: 'Reopen Meeting',
    description: 'Puts an ended or cancelled meeting back to scheduled, with the same join link and registrations.',
  },
  operation: {
    inputFields: [meetingField],
    perform: reopenMeeting,
    sample: meetingSample,
    outputFields: meetingFields,
  },
});
