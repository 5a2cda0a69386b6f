import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl, type Meeting } from '../api';
import { meetingField, meetingPath, meetingSample } from '../meeting-input';
import { meetingFields } from '../output-fields';

/** Cancels a scheduled meeting (DELETE; the record stays readable with status `cancelled`); svc answers 409 once it is live or ended. */
export async function cancelMeeting(z: ZObject, bundle: Bundle): Promise<Meeting> {
  const response = await z.request<Meeting>({ url: apiUrl(bundle, meetingPath(z, bundle)), method: 'DELETE' });
  return response.data;
}

/** Action: cancel a scheduled meeting or webinar. */
export default defineCreate({
  key: 'cancel_meeting',
  noun: 'Meeting',
  display: { label: 'Cancel Meeting', description: 'Cancels a scheduled meeting or webinar; its link then says it was cancelled.' },
  operation: {
    inputFields: [meetingField],
    perform: cancelMeeting,
    sample: { ...meetingSample, status: 'cancelled' },
    outputFields: meetingFields,
  },
});
