import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as JsonRpcCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { objectValidator } from '../shared/validation';
import { resourceError, toolErrorResult } from './mcp.errors';
import { RESOURCE_TEMPLATES } from './mcp.resources';
import type { McpContext, McpResourceTemplate, McpTool } from './mcp.tool';
import { TOOLS } from './tools';

const RESOURCES_PER_PAGE = 50;
const RESOURCE_URI = /^svc:\/\/meetings\/([^/]+)\/([a-z]+)$/;

const INSTRUCTIONS =
  'svc hosts online meetings. Find meetings with list_meetings, then read them with get_meeting, get_transcript and ' +
  'get_summary (a meeting is named by its id mtg_... or its join code abc-defg-hij); search_content finds words in what was ' +
  'said and written in meetings; ask_meetings answers a question from them with numbered citations; list_tasks gathers ' +
  'action items across meetings; create_meeting and schedule_meeting create meetings and return the join_url to share. Which tools you see ' +
  'depends on the scopes of the API key.';

/** A tool answered something its output schema does not allow: a bug of the server, reported as an internal error. */
export class ToolOutputError extends Error {}

/** The tools and resources an API key may use, built once per endpoint: argument and result validators are compiled here. */
export class McpCatalog {
  private readonly validators = new Map<string, (args: unknown) => Record<string, unknown>>();
  private readonly outputValidators = new Map<string, (structured: unknown) => Record<string, unknown>>();

  constructor(
    readonly tools: McpTool[] = TOOLS,
    readonly templates: McpResourceTemplate[] = RESOURCE_TEMPLATES,
  ) {
    for (const tool of tools) {
      this.validators.set(tool.name, objectValidator(tool.inputSchema));
      this.outputValidators.set(tool.name, objectValidator(tool.outputSchema));
    }
  }

  /** A new MCP server for one request of `ctx.principal`, showing only what its scopes allow. */
  serverFor(ctx: McpContext, logger: Logger, version: string): Server {
    const scopes: readonly string[] = ctx.principal.key.scopes;
    const tools = this.tools.filter((t) => scopes.includes(t.scope));
    const templates = this.templates.filter((t) => scopes.includes(t.scope));
    const server = new Server(
      { name: 'svc', title: 'svc meetings', version },
      { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
    );

    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema: inputSchema as { type: 'object' },
        outputSchema: outputSchema as { type: 'object' },
        annotations: { title, ...annotations },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, ({ params }) => this.call(ctx, logger, params.name, params.arguments));

    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: templates.map(({ name, title, description, kind, mimeType }) => ({
        name,
        title,
        description,
        mimeType,
        uriTemplate: `svc://meetings/{id}/${kind}`,
      })),
    }));
    server.setRequestHandler(ListResourcesRequestSchema, ({ params }) => listResources(ctx, logger, templates, params?.cursor));
    server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => {
      const match = RESOURCE_URI.exec(params.uri);
      const template = match && this.templates.find((t) => t.kind === match[2]);
      if (!match || !template) {
        throw new McpError(
          JsonRpcCode.InvalidParams,
          `Unknown resource ${params.uri}: use svc://meetings/{id}/transcript or svc://meetings/{id}/summary`,
        );
      }
      const meeting = decodeMeetingRef(match[1]!, params.uri);
      try {
        if (!scopes.includes(template.scope)) throw AppError.missingScope(template.scope);
        const text = template.read(ctx, meeting);
        return { contents: [{ uri: params.uri, mimeType: template.mimeType, text }] };
      } catch (err) {
        throw resourceError(err, logger);
      }
    });
    return server;
  }

  private async call(ctx: McpContext, logger: Logger, name: string, args: unknown): Promise<CallToolResult> {
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) throw new McpError(JsonRpcCode.InvalidParams, `Unknown tool: ${name}`);
    try {
      if (!ctx.principal.key.scopes.includes(tool.scope)) {
        throw AppError.missingScope(tool.scope, `This API key lacks the ${tool.scope} scope, which ${tool.name} needs`);
      }
      const output = await tool.run(ctx, this.validators.get(name)!(args));
      this.checkOutput(tool, output.structured);
      return { structuredContent: output.structured, content: [{ type: 'text', text: output.text ?? JSON.stringify(output.structured) }] };
    } catch (err) {
      return toolErrorResult(err, logger);
    }
  }

  /** Throws a ToolOutputError naming each field when `structured` does not match the tool's output schema (MCP clients check it too). */
  private checkOutput(tool: McpTool, structured: unknown): void {
    try {
      this.outputValidators.get(tool.name)!(structured);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const fields = (err.extra.errors ?? []).map((e) => `${e.param} ${e.message}`).join('; ');
      throw new ToolOutputError(`${tool.name} returned a result that does not match its output schema: ${fields}`);
    }
  }
}

/** One page of concrete resources: every meeting with a transcript, then every meeting with a summary. */
function listResources(
  ctx: McpContext,
  logger: Logger,
  templates: McpResourceTemplate[],
  cursor?: string,
): { resources: Resource[]; nextCursor?: string } {
  const at = cursor === undefined ? { kind: templates[0]?.kind, after: null } : parseCursor(cursor);
  const index = templates.findIndex((t) => t.kind === at.kind);
  const template = templates[index];
  if (!template) return { resources: [] };
  try {
    const rows = template.list(ctx, at.after, RESOURCES_PER_PAGE);
    const page = rows.slice(0, RESOURCES_PER_PAGE);
    const resources = page.map((m) => ({
      uri: `svc://meetings/${m.id}/${template.kind}`,
      name: `${template.kind} of ${m.title} (${m.code})`,
      title: `${template.title}: ${m.title}`,
      mimeType: template.mimeType,
    }));
    const next =
      rows.length > RESOURCES_PER_PAGE
        ? { kind: template.kind, after: page[page.length - 1]!.id }
        : templates[index + 1] && { kind: templates[index + 1]!.kind, after: null };
    return next ? { resources, nextCursor: Buffer.from(JSON.stringify(next)).toString('base64url') } : { resources };
  } catch (err) {
    throw resourceError(err, logger);
  }
}

function decodeMeetingRef(encoded: string, uri: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new McpError(JsonRpcCode.InvalidParams, `The meeting in ${uri} is not valid percent-encoded UTF-8`);
  }
}

function parseCursor(cursor: string): { kind: string; after: string | null } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { kind?: unknown; after?: unknown };
    if (
      typeof parsed.kind === 'string' &&
      (parsed.after === null || (typeof parsed.after === 'string' && /^mtg_[0-9a-z]{26}$/.test(parsed.after)))
    ) {
      return { kind: parsed.kind, after: parsed.after };
    }
  } catch {
    // fall through to the error below
  }
  throw new McpError(JsonRpcCode.InvalidParams, 'The cursor is not one this server returned');
}
