import type { Meeting } from '../../meetings/meetings.service';
import { meetingSchema } from '../../meetings/meetings.schemas';
import { pollSchema } from '../../polls/polls.openapi';
import type { JsonSchema } from '../../shared/validation';
import { meetingArgument } from '../mcp.views';
import { defineTool } from '../mcp.tool';

/** The meeting resource with the polls run in its room. */
const meetingWithPollsSchema: JsonSchema = {
  ...meetingSchema,
  required: [...(meetingSchema.required as string[]), 'polls'],
  properties: {
    ...(meetingSchema.properties as Record<string, unknown>),
    polls: { type: 'array', description: 'Polls hosts ran in the room, oldest first, with their results.', items: pollSchema },
  },
};

/** get_meeting: one meeting by id or join code, with its poll results. */
export const getMeetingTool = defineTool<{ meeting: string }>({
  name: 'get_meeting',
  title: 'Get a meeting',
  description:
    'Returns the details of one meeting: title, status (scheduled, live, ended, cancelled), scheduled start with its UTC offset, ' +
    'planned duration, settings, the join_url people open to join, and the polls run in its room with their results ' +
    '(votes per option; who voted for what unless the poll is anonymous). Pass the meeting id (mtg_...) or the join code (abc-defg-hij).',
  scope: 'meetings:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { type: 'object', additionalProperties: false, required: ['meeting'], properties: { meeting: meetingArgument } },
  outputSchema: meetingWithPollsSchema,
  run({ principal, services }, { meeting }) {
    const found: Meeting = services.meetings.get(principal, meeting);
    return { structured: { ...found, polls: services.polls.forMeeting(found.id) } };
  },
});
