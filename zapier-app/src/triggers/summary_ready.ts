import { eventTrigger } from '../event-trigger';
import { eventFields, eventMeetingFields, summaryFields } from '../output-fields';

/** Fires when a meeting's AI summary is available. */
export default eventTrigger({
  key: 'summary_ready',
  type: 'summary.ready',
  noun: 'Summary',
  label: 'Summary Ready',
  description: 'Triggers when the AI summary of a meeting (TL;DR, decisions, action items) is available.',
  sample: {
    id: 'evt_01krdv8t5w7y9a2c4e6g8j1m3p',
    type: 'summary.ready',
    created_at: '2026-05-12T10:19:30.000Z',
    data: {
      meeting: {
        id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
        code: 'kpw-rtbn-fqe',
        title: 'Design review',
        status: 'ended',
        started_at: '2026-05-12T09:30:00.000Z',
        ended_at: '2026-05-12T10:15:00.000Z',
      },
      summary: { tldr: 'The team approved the new onboarding flow; Ada ships it on Friday.' },
    },
  },
  outputFields: [...eventFields, ...eventMeetingFields, ...summaryFields],
});
