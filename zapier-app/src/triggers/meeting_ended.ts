import { eventTrigger } from '../event-trigger';
import { eventFields, eventMeetingFields } from '../output-fields';

/** Fires when a meeting ends for everyone. */
export default eventTrigger({
  key: 'meeting_ended',
  type: 'meeting.ended',
  noun: 'Meeting',
  label: 'Meeting Ended',
  description: 'Triggers when a meeting ends for everyone.',
  sample: {
    id: 'evt_01krdtx1b4m9q2w7e5r8t3y6a0',
    type: 'meeting.ended',
    created_at: '2026-05-12T10:15:00.000Z',
    data: {
      meeting: {
        id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
        code: 'kpw-rtbn-fqe',
        title: 'Design review',
        status: 'ended',
        started_at: '2026-05-12T09:30:00.000Z',
        ended_at: '2026-05-12T10:15:00.000Z',
      },
    },
  },
  outputFields: [...eventFields, ...eventMeetingFields],
});
