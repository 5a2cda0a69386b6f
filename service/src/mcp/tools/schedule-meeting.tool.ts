import { createMeetingSchema, meetingSchema } from '../../meetings/meetings.schemas';
import type { JsonSchema } from '../../shared/validation';
import { defineTool } from '../mcp.tool';
import { meetingInputFields } from '../mcp.views';

const fields = createMeetingSchema.properties as Record<string, JsonSchema>;

/** schedule_meeting: a meeting at a given time (with UTC offset) for a given length; returns its join_url. */
export const scheduleMeetingTool = defineTool<{ title: string; scheduled_at: string; duration_minutes?: number; settings?: object }>({
  name: 'schedule_meeting',
  title: 'Schedule a meeting',
  description:
    'Schedules a meeting for a given start time and length and returns it with its join_url to share with the participants. ' +
    '`scheduled_at` is an RFC 3339 date-time that must carry the UTC offset of the time zone meant, e.g. ' +
    '"2026-05-01T09:00:00+02:00" for 9:00 in Berlin in summer; ask the user for their time zone if unsure. Every call creates a new meeting.',
  scope: 'meetings:write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['title', 'scheduled_at'],
    properties: {
      ...meetingInputFields,
      scheduled_at: { ...fields.scheduled_at, description: 'Start time: RFC 3339 with UTC offset, e.g. 2026-05-01T09:00:00+02:00.' },
    },
  },
  outputSchema: meetingSchema,
  run({ principal, services }, args) {
    return { structured: { ...services.meetings.create(principal, args) } };
  },
});
