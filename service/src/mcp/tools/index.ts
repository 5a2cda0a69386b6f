import type { McpTool } from '../mcp.tool';
import { askMeetingsTool } from './ask-meetings.tool';
import { createMeetingTool } from './create-meeting.tool';
import { getLiveTranscriptTool } from './get-live-transcript.tool';
import { getMeetingTool } from './get-meeting.tool';
import { getSummaryTool } from './get-summary.tool';
import { getTranscriptTool } from './get-transcript.tool';
import { listMeetingsTool } from './list-meetings.tool';
import { listParticipantsTool } from './list-participants.tool';
import { listTasksTool } from './list-tasks.tool';
import { scheduleMeetingTool } from './schedule-meeting.tool';
import { searchContentTool } from './search-content.tool';

/** Every tool of the MCP endpoint, in the order tools/list shows them; a new tool is one file and one line here. */
export const TOOLS: McpTool[] = [
  listMeetingsTool,
  getMeetingTool,
  listParticipantsTool,
  getTranscriptTool,
  getLiveTranscriptTool,
  getSummaryTool,
  searchContentTool,
  askMeetingsTool,
  listTasksTool,
  createMeetingTool,
  scheduleMeetingTool,
];
