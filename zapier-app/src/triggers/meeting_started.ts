import { eventTrigger } from '../event-trigger';
import { eventFields, eventMeetingFields } from '../output-fields';

/** Fires when the first participant joins a meeting and it goes live. */
export default eventTrigger({
  key: 'meeting_started',
  type: 'meeting.started',
  noun: 'Meeting',
  label: 'Meeting Started',
  description: 'Triggers when the first participant joins a meeting and it goes live.',
  sample: {
    id: 'evt_01krdrb5e0dwazznx6dpa6ked4',
    type: 'meeting.started',
    created_at: '2026-05-12T09:30:00.000Z',
    data: {
      meeting: {
        id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
        code: 'kpw-rtbn-fqe',
        title: 'Design review',
        status: 'live',
        started_at: '2026-05-12T09:30:00.000Z',
        ended_at: null,
      },
    },
  },
  outputFields: [...eventFields, ...eventMeetingFields],
});
