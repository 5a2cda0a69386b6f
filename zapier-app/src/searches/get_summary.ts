import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import { getOrNull, meetingField, meetingPath } from '../meeting-input';

/** Indexes of the transcript segments an item comes from. */
type Cite = number[];

/** A summary as GET /meetings/{id}/summary returns it. */
export interface Summary {
  meeting_id: string;
  tldr: string;
  decisions: { text: string; cite: Cite }[];
  action_items: { text: string; owner: string | null; due: string | null; cite: Cite }[];
  generator: string;
  created_at: string;
}

/** What the search returns: the summary with decisions and action items as line items (without the transcript citations) and as text. */
export interface SummaryResult {
  id: string;
  meeting_id: string;
  tldr: string;
  decisions: { text: string }[];
  action_items: { text: string; owner: string | null; due: string | null }[];
  decisions_text: string;
  action_items_text: string;
  generator: string;
  created_at: string;
}

/** The line items of a summary (decisions, action items with owner and due, without the transcript citations) and the same as text. */
export function summaryLineItems(
  summary: Summary,
): Pick<SummaryResult, 'decisions' | 'action_items' | 'decisions_text' | 'action_items_text'> {
  const actionItems = summary.action_items.map(({ text, owner, due }) => ({ text, owner, due }));
  return {
    decisions: summary.decisions.map(({ text }) => ({ text })),
    action_items: actionItems,
    decisions_text: summary.decisions.map((d) => `- ${d.text}`).join('\n'),
    action_items_text: actionItems
      .map((a) => `- ${a.text}${a.owner ? ` (${a.owner}${a.due ? `, due ${a.due}` : ''})` : a.due ? ` (due ${a.due})` : ''}`)
      .join('\n'),
  };
}

/** The meeting's summary as a list of one, or an empty list before there is one. */
export async function getSummary(z: ZObject, bundle: Bundle): Promise<SummaryResult[]> {
  const summary = await getOrNull<Summary>(z, bundle, meetingPath(z, bundle, '/summary'));
  if (!summary) return [];
  return [
    {
      id: summary.meeting_id,
      meeting_id: summary.meeting_id,
      tldr: summary.tldr,
      ...summaryLineItems(summary),
      generator: summary.generator,
      created_at: summary.created_at,
    },
  ];
}

/** Search: a meeting's TL;DR, decisions and action items (line items), e.g. to file the action items as tasks. */
export default defineSearch({
  key: 'get_summary',
  noun: 'Summary',
  display: {
    label: 'Get Summary',
    description: 'Gets a meeting’s summary: the TL;DR, and its decisions and action items as line items.',
  },
  operation: {
    inputFields: [meetingField],
    perform: getSummary,
    sample: {
      id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
      meeting_id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
      tldr: 'Release on Friday; Ada writes the notes.',
      decisions: [{ text: 'We ship on Friday.' }],
      action_items: [{ text: 'Write the release notes', owner: 'Ada', due: '2026-05-15' }],
      decisions_text: '- We ship on Friday.',
      action_items_text: '- Write the release notes (Ada, due 2026-05-15)',
      generator: 'extractive',
      created_at: '2026-05-12T12:20:00.000Z',
    },
    outputFields: [
      { key: 'meeting_id', label: 'Meeting ID', type: 'string' },
      { key: 'tldr', label: 'TL;DR', type: 'string' },
      { key: 'decisions[]text', label: 'Decision', type: 'string' },
      { key: 'action_items[]text', label: 'Action Item', type: 'string' },
      { key: 'action_items[]owner', label: 'Action Item Owner', type: 'string' },
      { key: 'action_items[]due', label: 'Action Item Due', type: 'string' },
      { key: 'decisions_text', label: 'Decisions (Text)', type: 'string' },
      { key: 'action_items_text', label: 'Action Items (Text)', type: 'string' },
      { key: 'generator', label: 'Generator', type: 'string' },
      { key: 'created_at', label: 'Created At', type: 'datetime' },
    ],
  },
});
