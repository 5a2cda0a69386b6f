import { eventTrigger } from '../event-trigger';
import { eventFields, eventMeetingFields, transcriptFields } from '../output-fields';

/** Fires when a meeting's transcript is complete. */
export default eventTrigger({
  key: 'transcript_ready',
  type: 'transcript.ready',
  noun: 'Transcript',
  label: 'Transcript Ready',
  description: 'Triggers when the transcript of a meeting is complete.',
  sample: {
    id: 'evt_01krdv6q2s4h7w9y1a3c5e8g0j',
    type: 'transcript.ready',
    created_at: '2026-05-12T10:19:02.000Z',
    data: {
      meeting: {
        id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
        code: 'kpw-rtbn-fqe',
        title: 'Design review',
        status: 'ended',
        started_at: '2026-05-12T09:30:00.000Z',
        ended_at: '2026-05-12T10:15:00.000Z',
      },
      transcript: { language: 'en', segment_count: 412 },
    },
  },
  outputFields: [...eventFields, ...eventMeetingFields, ...transcriptFields],
});
