import type { McpContext, McpResourceTemplate } from './mcp.tool';
import { summaryText, transcriptText } from './mcp.views';

function meetingsOf(ctx: McpContext, meetingIds: string[]) {
  return meetingIds.map((id) => ctx.services.meetings.get(ctx.principal, id));
}

/** The resource templates of the MCP endpoint: `svc://meetings/{id}/transcript` and `svc://meetings/{id}/summary`. */
export const RESOURCE_TEMPLATES: McpResourceTemplate[] = [
  {
    name: 'meeting-transcript',
    title: 'Meeting transcript',
    description:
      'What was said in a meeting, as plain text: one line per segment, "[m:ss] Speaker: words". {id} is a meeting id or join code.',
    scope: 'transcripts:read',
    kind: 'transcript',
    mimeType: 'text/plain',
    list: (ctx, after, limit) =>
      meetingsOf(
        ctx,
        ctx.services.transcripts.list(ctx.principal, { after, limit }).map((t) => t.meeting_id),
      ),
    read(ctx, meeting) {
      const found = ctx.services.meetings.get(ctx.principal, meeting);
      return transcriptText(ctx.services.transcripts.find(ctx.principal, found.id));
    },
  },
  {
    name: 'meeting-summary',
    title: 'Meeting summary',
    description:
      'The AI summary of a meeting as plain text: TL;DR, decisions, action items with owner and due date. {id} is a meeting id or join code.',
    scope: 'transcripts:read',
    kind: 'summary',
    mimeType: 'text/plain',
    list: (ctx, after, limit) =>
      meetingsOf(
        ctx,
        ctx.services.summaries.list(ctx.principal, { after, limit }).map((s) => s.meeting_id),
      ),
    read(ctx, meeting) {
      const found = ctx.services.meetings.get(ctx.principal, meeting);
      return summaryText(found.title, ctx.services.summaries.find(ctx.principal, found.id));
    },
  },
];
