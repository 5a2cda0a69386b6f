import { createMeetingSchema } from '../meetings/meetings.schemas';
import type { Meeting } from '../meetings/meetings.service';
import { clockTime } from '../shared/clock';
import type { JsonSchema } from '../shared/validation';
import type { Summary } from '../summaries/summaries.repo';
import type { Transcript } from '../transcripts/transcripts.repo';

/** The meeting a transcript, summary or task belongs to, as tool outputs name it. */
export const meetingRefSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'code', 'title'],
  properties: { id: { type: 'string' }, code: { type: 'string' }, title: { type: 'string' } },
};

/** The id, code and title of a meeting. */
export function meetingRefOf(m: Pick<Meeting, 'id' | 'code' | 'title'>): { id: string; code: string; title: string } {
  return { id: m.id, code: m.code, title: m.title };
}

/** The argument naming a meeting, shared by the tools that read one. */
export const meetingArgument: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description: 'The meeting: its id (mtg_...) or its join code (abc-defg-hij), as list_meetings returns them.',
};

/** The `limit` and `cursor` arguments of a paged tool; `what` names what `limit` counts. */
export function pageArguments(what: string): Record<string, JsonSchema> {
  return {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: `How many ${what} to read (1-100).` },
    cursor: { type: 'string', description: 'The `next_cursor` of the previous page; omit for the first page.' },
  };
}

/** The `has_more` and `next_cursor` fields of a paged tool's output. */
export const pageOutputFields: Record<string, JsonSchema> = { has_more: { type: 'boolean' }, next_cursor: { type: ['string', 'null'] } };

const createFields = createMeetingSchema.properties as Record<string, JsonSchema>;

/** The arguments create_meeting and schedule_meeting share: title, planned length, settings. */
export const meetingInputFields: Record<string, JsonSchema> = {
  title: { ...createFields.title, description: 'What the meeting is about, one line.' },
  duration_minutes: { ...createFields.duration_minutes, description: 'Planned length in minutes (1-1440, default 60).' },
  settings: createFields.settings!,
};

/** A transcript as plain text: one line per segment, `[m:ss] Speaker: text`. */
export function transcriptText(t: Pick<Transcript, 'segments'>): string {
  return t.segments.map((s) => `[${clockTime(s.start)}] ${s.speaker ? `${s.speaker}: ` : ''}${s.text}`).join('\n');
}

/** A summary as plain text: the TL;DR, the decisions and the action items with owner and due date, who said each and when. */
export function summaryText(title: string, s: Summary): string {
  const saidBy = ({ speakers, start_seconds }: { speakers?: string[]; start_seconds?: number | null }) => {
    const who = speakers?.length ? `said by ${speakers.join(', ')}` : '';
    const when = typeof start_seconds === 'number' ? `at ${clockTime(start_seconds)}` : '';
    return who || when ? ` (${[who, when].filter(Boolean).join(' ')})` : '';
  };
  const decisions = s.decisions.map((d) => `- ${d.text}${saidBy(d)}`);
  const actions = s.action_items.map((a) => `- ${a.text} (owner: ${a.owner ?? 'unassigned'}; due: ${a.due ?? 'no date'})${saidBy(a)}`);
  return [
    `Summary of "${title}"`,
    `TL;DR: ${s.tldr}`,
    `Decisions:\n${decisions.length ? decisions.join('\n') : '- none recorded'}`,
    `Action items:\n${actions.length ? actions.join('\n') : '- none recorded'}`,
  ].join('\n\n');
}

/** The fields locating a passage (a transcript segment or a chat message), shared by search_content hits and ask_meetings citations. */
export const passageFields: Record<string, JsonSchema> = {
  meeting: meetingRefSchema,
  source: { type: 'string', enum: ['transcript', 'chat'], description: 'transcript: said in the meeting; chat: written in its chat.' },
  speaker: { type: ['string', 'null'], description: 'Who said or wrote it (their name at the time).' },
  participant_id: {
    type: ['string', 'null'],
    description: "Their participant id (the meeting's participants list in the REST API); null when unknown.",
  },
  time: { type: ['string', 'null'], description: 'Transcript passages: m:ss from the start of the recording.' },
  start_seconds: { type: ['number', 'null'], description: 'Transcript passages: seconds from the start of the recording.' },
  segment_index: { type: ['integer', 'null'], description: "Transcript passages: the segment's index, as get_transcript numbers them." },
  chat_message_id: { type: ['string', 'null'], description: "Chat passages: the message's id." },
  at: { type: 'string', format: 'date-time', description: 'When the chat message was sent, or when the transcript was made.' },
  text: { type: 'string', description: 'The whole segment or message.' },
};

/** The names of `passageFields`, all required. */
export const passageRequired = Object.keys(passageFields);

/** A passage's `time` field: m:ss for a transcript segment, null for a chat message. */
export function passageTime(passage: { start_seconds: number | null }): string | null {
  return passage.start_seconds === null ? null : clockTime(passage.start_seconds);
}
