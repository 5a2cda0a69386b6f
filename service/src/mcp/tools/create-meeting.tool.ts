import { meetingSchema } from '../../meetings/meetings.schemas';
import { defineTool } from '../mcp.tool';
import { meetingInputFields } from '../mcp.views';

/** create_meeting: an instant meeting, starting now; returns its join_url. */
export const createMeetingTool = defineTool<{ title: string; duration_minutes?: number; settings?: { waiting_room?: boolean } }>({
  name: 'create_meeting',
  title: 'Start an instant meeting',
  description:
    'Creates a meeting that starts now and returns it with its join_url: share that link and people join from the browser. ' +
    'Use schedule_meeting instead for a meeting at a later time. Every call creates a new meeting.',
  scope: 'meetings:write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['title'],
    properties: {
      ...meetingInputFields,
    },
  },
  outputSchema: meetingSchema,
  run({ principal, services }, args) {
    return { structured: { ...services.meetings.create(principal, args) } };
  },
});
