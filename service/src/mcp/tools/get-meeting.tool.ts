import type { Meeting } from '../../meetings/meetings.service';
import { meetingSchema } from '../../meetings/meetings.schemas';
import { meetingArgument } from '../mcp.views';
import { defineTool } from '../mcp.tool';

/** get_meeting: one meeting by id or join code. */
export const getMeetingTool = defineTool<{ meeting: string }>({
  name: 'get_meeting',
  title: 'Get a meeting',
  description:
    'Returns the details of one meeting: title, status (scheduled, live, ended, cancelled), scheduled start with its UTC offset, ' +
    'planned duration, settings and the join_url people open to join. Pass the meeting id (mtg_...) or the join code (abc-defg-hij).',
  scope: 'meetings:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { type: 'object', additionalProperties: false, required: ['meeting'], properties: { meeting: meetingArgument } },
  outputSchema: meetingSchema,
  run({ principal, services }, { meeting }) {
    const found: Meeting = services.meetings.get(principal, meeting);
    return { structured: { ...found } };
  },
});
