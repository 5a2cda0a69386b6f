import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import { getOrNull, meetingField, meetingPath } from '../meeting-input';

/** A transcript as GET /meetings/{id}/transcript returns it. */
export interface Transcript {
  meeting_id: string;
  language: string;
  status: string;
  text: string;
  segments: { start: number; end: number; speaker: string | null; participant_id: string | null; text: string }[];
  created_at: string;
  updated_at: string;
}

/** The meeting's transcript as a list of one (with `id`, which Zapier expects of a search result), or an empty list before there is one. */
export async function getTranscript(z: ZObject, bundle: Bundle): Promise<(Transcript & { id: string })[]> {
  const transcript = await getOrNull<Transcript>(z, bundle, meetingPath(z, bundle, '/transcript'));
  return transcript ? [{ id: transcript.meeting_id, ...transcript }] : [];
}

/** Search: the full text and the timed segments (line items) of a meeting's transcript. */
export default defineSearch({
  key: 'get_transcript',
  noun: 'Transcript',
  display: {
    label: 'Get Transcript',
    description: 'Gets the full text of a meeting’s transcript, with its timed segments as line items.',
  },
  operation: {
    inputFields: [meetingField],
    perform: getTranscript,
    sample: {
      id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
      meeting_id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
      language: 'en',
      status: 'complete',
      text: 'Bob: We ship on Friday.\nAda: I write the release notes.',
      segments: [
        { start: 0, end: 2.5, speaker: 'Bob', participant_id: 'prt_01krd9y4b2c6d8f0g3h5j7k9m1', text: 'We ship on Friday.' },
        { start: 2.5, end: 5.1, speaker: 'Ada', participant_id: 'prt_01krd9y6n4p8q0r2s5t7v9w1x3', text: 'I write the release notes.' },
      ],
      created_at: '2026-05-12T12:18:40.000Z',
      updated_at: '2026-05-12T12:18:40.000Z',
    },
    outputFields: [
      { key: 'meeting_id', label: 'Meeting ID', type: 'string' },
      { key: 'language', label: 'Language', type: 'string' },
      { key: 'status', label: 'Status', type: 'string' },
      { key: 'text', label: 'Full Text', type: 'string' },
      { key: 'segments[]start', label: 'Segment Start (Seconds)', type: 'number' },
      { key: 'segments[]end', label: 'Segment End (Seconds)', type: 'number' },
      { key: 'segments[]speaker', label: 'Segment Speaker', type: 'string' },
      { key: 'segments[]participant_id', label: 'Segment Speaker Participant ID', type: 'string' },
      { key: 'segments[]text', label: 'Segment Text', type: 'string' },
      { key: 'created_at', label: 'Created At', type: 'datetime' },
      { key: 'updated_at', label: 'Updated At', type: 'datetime' },
    ],
  },
});
