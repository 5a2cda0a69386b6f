import { decodeCursor, encodeCursor } from '../../shared/paging';
import { trackerLinks } from '../../summaries/summaries.service';
import { meetingRefOf, meetingRefSchema, pageArguments, pageOutputFields } from '../mcp.views';
import { defineTool } from '../mcp.tool';

/** list_tasks: the action items of the summaries of the meetings the key can read, newest meeting first. */
export const listTasksTool = defineTool<{ owner?: string; limit?: number; cursor?: string }>({
  name: 'list_tasks',
  title: 'List tasks from meetings',
  description:
    "Lists the tasks (action items) agreed in meetings, taken from the meetings' AI summaries, newest meeting first: what to do, " +
    'who owns it, when it is due, links to issue trackers or documents mentioned in it, and the meeting it comes from. `owner` ' +
    "keeps only one person's tasks (case-insensitive). Each page covers up to `limit` summarized meetings (default 20); when " +
    '`has_more` is true, call again with `cursor` set to `next_cursor`.',
  scope: 'transcripts:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      owner: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'Only tasks owned by this person (their name as in the summary).',
      },
      ...pageArguments('summarized meetings'),
    },
  },
  outputSchema: {
    type: 'object',
    required: ['tasks', 'has_more', 'next_cursor'],
    properties: {
      tasks: {
        type: 'array',
        items: {
          type: 'object',
          required: ['text', 'owner', 'due', 'tracker_links', 'meeting', 'cite'],
          properties: {
            text: { type: 'string' },
            owner: { type: ['string', 'null'] },
            due: { type: ['string', 'null'] },
            tracker_links: { type: 'array', items: { type: 'string', format: 'uri' } },
            meeting: meetingRefSchema,
            cite: { type: 'array', items: { type: 'integer', minimum: 0 }, description: 'Transcript segment indexes it comes from.' },
          },
        },
      },
      ...pageOutputFields,
    },
  },
  run({ principal, services }, { owner, limit = 20, cursor }) {
    const summaries = services.summaries.list(principal, { limit, after: cursor === undefined ? null : decodeCursor(cursor) });
    const has_more = summaries.length > limit;
    const page = summaries.slice(0, limit);
    const wanted = owner?.trim().toLowerCase();
    const tasks = page.flatMap((summary) => {
      const meeting = meetingRefOf(services.meetings.get(principal, summary.meeting_id));
      return summary.action_items
        .filter((item) => wanted === undefined || item.owner?.trim().toLowerCase() === wanted)
        .map((item) => ({
          text: item.text,
          owner: item.owner,
          due: item.due,
          tracker_links: trackerLinks(item.text),
          meeting,
          cite: item.cite,
        }));
    });
    const last = page[page.length - 1];
    return { structured: { tasks, has_more, next_cursor: has_more && last ? encodeCursor(last.meeting_id) : null } };
  },
});
