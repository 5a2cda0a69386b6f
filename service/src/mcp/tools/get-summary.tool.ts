import { meetingArgument, meetingRefOf, meetingRefSchema, summaryText } from '../mcp.views';
import { defineTool } from '../mcp.tool';

const cite = { type: 'array', items: { type: 'integer', minimum: 0 }, description: 'Indexes of the transcript segments it comes from.' };
const speakers = {
  type: 'array',
  items: { type: 'string' },
  description: 'Who said the cited segments (names, each once); empty when unknown.',
};
const startSeconds = {
  type: ['number', 'null'],
  description: 'When it was said: seconds from the start of the recording; null when unknown.',
};

/** get_summary: a meeting's AI summary (TL;DR, decisions, action items). */
export const getSummaryTool = defineTool<{ meeting: string }>({
  name: 'get_summary',
  title: 'Get a meeting summary',
  description:
    'Returns the AI summary of a meeting: a one-paragraph TL;DR, the decisions taken and the action items with owner and due ' +
    'date. Each item cites the transcript segments (by index, see get_transcript) it was drawn from. Only meetings that were ' +
    'transcribed have a summary; otherwise the tool says so.',
  scope: 'transcripts:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { type: 'object', additionalProperties: false, required: ['meeting'], properties: { meeting: meetingArgument } },
  outputSchema: {
    type: 'object',
    required: ['meeting', 'tldr', 'decisions', 'action_items', 'generator', 'created_at'],
    properties: {
      meeting: meetingRefSchema,
      tldr: { type: 'string' },
      decisions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['text', 'cite', 'speakers', 'start_seconds'],
          properties: { text: { type: 'string' }, cite, speakers, start_seconds: startSeconds },
        },
      },
      action_items: {
        type: 'array',
        items: {
          type: 'object',
          required: ['text', 'owner', 'due', 'cite', 'speakers', 'start_seconds'],
          properties: {
            text: { type: 'string' },
            owner: { type: ['string', 'null'], description: 'Who the task was given to; null when nobody was named.' },
            due: { type: ['string', 'null'], description: 'The day it is due, YYYY-MM-DD; null when none was said.' },
            cite,
            speakers,
            start_seconds: startSeconds,
          },
        },
      },
      generator: {
        type: 'string',
        enum: ['extractive', 'llm'],
        description: 'extractive: sentences taken from the transcript; llm: written by a model.',
      },
      created_at: { type: 'string', format: 'date-time' },
    },
  },
  run({ principal, services }, { meeting }) {
    const found = services.meetings.get(principal, meeting);
    const { tldr, decisions, action_items, generator, created_at } = services.summaries.find(principal, found.id);
    const structured = { meeting: meetingRefOf(found), tldr, decisions, action_items, generator, created_at };
    return { structured, text: summaryText(found.title, { meeting_id: found.id, tldr, decisions, action_items, generator, created_at }) };
  },
});
