import type { MeetingStatus } from '../../meetings/meetings.repo';
import { meetingSchema } from '../../meetings/meetings.schemas';
import { decodeCursor, toPage } from '../../shared/paging';
import { defineTool } from '../mcp.tool';
import { pageArguments, pageOutputFields } from '../mcp.views';

/** list_meetings: the meetings the key can read, newest first, with a status filter and cursor pagination. */
export const listMeetingsTool = defineTool<{ status?: MeetingStatus; limit?: number; cursor?: string }>({
  name: 'list_meetings',
  title: 'List meetings',
  description:
    'Lists the meetings this API key can see, newest first. Use it to find a meeting before calling get_meeting, get_transcript or ' +
    'get_summary. Filter with `status` (scheduled: not started yet; live: in progress; ended; cancelled). Returns up to `limit` ' +
    'meetings (default 20); when `has_more` is true, call again with `cursor` set to the returned `next_cursor` for the next page.',
  scope: 'meetings:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: { type: 'string', enum: ['scheduled', 'live', 'ended', 'cancelled'], description: 'Only meetings in this state.' },
      ...pageArguments('meetings'),
    },
  },
  outputSchema: {
    type: 'object',
    required: ['meetings', 'has_more', 'next_cursor'],
    properties: {
      meetings: { type: 'array', items: meetingSchema },
      ...pageOutputFields,
    },
  },
  run({ principal, services }, { status, limit = 20, cursor }) {
    const page = { limit, after: cursor === undefined ? null : decodeCursor(cursor) };
    const { data, has_more, next_cursor } = toPage(services.meetings.list(principal, page, status), limit, (row) =>
      services.meetings.view(row),
    );
    return { structured: { meetings: data, has_more, next_cursor } };
  },
});
