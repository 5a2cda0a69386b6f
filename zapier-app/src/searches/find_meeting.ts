import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import type { Meeting } from '../api';
import { getOrNull, meetingField, meetingPath, meetingSample } from '../meeting-input';
import { meetingFields } from '../output-fields';

/** The meeting with this id or code, as a list of one, or an empty list when there is none. */
export async function findMeeting(z: ZObject, bundle: Bundle): Promise<Meeting[]> {
  const meeting = await getOrNull<Meeting>(z, bundle, meetingPath(z, bundle));
  return meeting ? [meeting] : [];
}

/** Search: a meeting or webinar by its ID, code or join URL. */
export default defineSearch({
  key: 'find_meeting',
  noun: 'Meeting',
  display: { label: 'Find Meeting', description: 'Finds a meeting or webinar by its ID, code or join URL.' },
  operation: {
    inputFields: [{ ...meetingField, helpText: 'The meeting’s ID (`mtg_...`), code (`abc-defg-hij`) or join URL.' }],
    perform: findMeeting,
    sample: meetingSample,
    outputFields: meetingFields,
  },
});
