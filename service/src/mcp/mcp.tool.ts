import type { Principal } from '../identity/identity.service';
import type { Scope } from '../keys/scopes';
import type { AskService } from '../search/ask.service';
import type { SearchService } from '../search/search.service';
import type { MeetingsService } from '../meetings/meetings.service';
import type { PollsService } from '../polls/polls.service';
import type { RoomsService } from '../rooms/rooms.service';
import type { SummariesService } from '../summaries/summaries.service';
import type { TranscriptsService } from '../transcripts/transcripts.service';
import type { JsonSchema } from '../shared/validation';

/** The domain services the tools and resources use (the same ones the REST API calls). */
export interface McpServices {
  meetings: MeetingsService;
  polls: PollsService;
  transcripts: TranscriptsService;
  summaries: SummariesService;
  search: SearchService;
  ask: AskService;
  /** The live rooms (list_participants). */
  rooms: Pick<RoomsService, 'liveRooms' | 'captions'>;
}

/** What a tool or resource may use: the caller and the domain services. */
export interface McpContext {
  principal: Principal;
  services: McpServices;
}

/** A tool's answer: `structured` matches its output schema; `text` is what a model reads (the JSON of `structured` when absent). */
export interface ToolOutput {
  structured: Record<string, unknown>;
  text?: string;
}

/** Hints a client may show or act on (MCP tool annotations). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One MCP tool: listed and callable only with `scope`; arguments are validated against `inputSchema` before `run`. */
export interface McpTool<Args = Record<string, unknown>> {
  name: string;
  title: string;
  /** Written for a model: what the tool does, when to use it, what it returns. */
  description: string;
  scope: Scope;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  run(ctx: McpContext, args: Args): ToolOutput | Promise<ToolOutput>;
}

/** Declares a tool with typed arguments; the endpoint validates arguments against `inputSchema` before `run` sees them. */
export function defineTool<Args>(tool: McpTool<Args>): McpTool {
  return tool as unknown as McpTool;
}

/** One resource template (`svc://meetings/{id}/...`): readable, and listed per meeting, only with `scope`. */
export interface McpResourceTemplate {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  /** The template's last path segment: `svc://meetings/{id}/<kind>`. */
  kind: string;
  mimeType: string;
  /** Meetings (id, code, title) that have this resource, newest first, after `after`; `limit + 1` at most. */
  list(ctx: McpContext, after: string | null, limit: number): { id: string; code: string; title: string }[];
  /** The resource's text for one meeting (id or code). */
  read(ctx: McpContext, meeting: string): string;
}
