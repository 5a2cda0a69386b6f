import type { Bundle, ZObject } from 'zapier-platform-core';
import type { SvcEvent } from '../api';
import { eventTrigger } from '../event-trigger';
import { getOrNull } from '../meeting-input';
import { eventFields, eventMeetingFields, summaryFields } from '../output-fields';
import { summaryLineItems, type Summary } from '../searches/get_summary';

/** The event with the summary's decisions and action items (line items with owner and due) in `data.summary`, read from the API. */
export async function withSummaryItems(z: ZObject, bundle: Bundle, event: SvcEvent): Promise<SvcEvent> {
  const meeting = event.data.meeting as { id: string };
  const summary = await getOrNull<Summary>(z, bundle, `/meetings/${encodeURIComponent(meeting.id)}/summary`);
  if (!summary) return event;
  const items = { tldr: summary.tldr, ...summaryLineItems(summary), generator: summary.generator };
  return { ...event, data: { ...event.data, summary: { ...(event.data.summary as object), ...items } } };
}

/** Fires when a meeting's AI summary is available; hands the Zap its TL;DR, decisions and action items. */
export default eventTrigger({
  key: 'summary_ready',
  type: 'summary.ready',
  noun: 'Summary',
  label: 'Summary Ready',
  description: 'Triggers when the AI summary of a meeting is available, with its TL;DR, and its decisions and action items as line items.',
  enrich: withSummaryItems,
  maxListed: 10,
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
      summary: {
        tldr: 'The team approved the new onboarding flow; Ada ships it on Friday.',
        decisions: [{ text: 'We decided to ship the onboarding flow on Friday.' }],
        action_items: [{ text: 'Ada will write the release notes by Wednesday.', owner: 'Ada', due: '2026-05-13' }],
        decisions_text: '- We decided to ship the onboarding flow on Friday.',
        action_items_text: '- Ada will write the release notes by Wednesday. (Ada, due 2026-05-13)',
        generator: 'extractive',
      },
    },
  },
  outputFields: [...eventFields, ...eventMeetingFields, ...summaryFields],
});
