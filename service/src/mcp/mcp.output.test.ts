import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Principal } from '../identity/identity.service';
import { createLogger } from '../shared/logger';
import {
  MCP_TOOL_NAMES,
  connectMcpClient,
  principalIn,
  resultText,
  seedCorpus,
  seedMeeting,
  seedParticipant,
  seedPoll,
  seedSummary,
  seedTranscript,
  startTestServer,
  type TestServer,
} from '../testing';
import { McpCatalog } from './mcp.server';
import { defineTool, type McpServices } from './mcp.tool';

describe('MCP tool results are checked against their output schemas', () => {
  /** A catalog of one tool answering `structured`, served in-process to the SDK client; the log lines are kept. */
  async function callOneTool(structured: Record<string, unknown>) {
    const logged: string[] = [];
    const counter = defineTool<Record<string, never>>({
      name: 'count_things',
      title: 'Count things',
      description: 'Counts things.',
      scope: 'meetings:read',
      inputSchema: { type: 'object', additionalProperties: false, properties: {} },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['count', 'counted_at'],
        properties: { count: { type: 'integer', minimum: 0 }, counted_at: { type: 'string', format: 'date-time' } },
      },
      annotations: { readOnlyHint: true },
      run: () => ({ structured }),
    });
    const catalog = new McpCatalog([counter], []);
    const principal = { key: { scopes: ['meetings:read'] } } as unknown as Principal;
    const logger = createLogger('error', (line) => logged.push(line));
    const server = catalog.serverFor({ principal, services: {} as McpServices }, logger, '0.0.0');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'svc-tests', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      return { result: await client.callTool({ name: 'count_things', arguments: {} }), logged };
    } finally {
      await client.close();
      await server.close();
    }
  }

  it('passes a conforming result through as structuredContent and text', async () => {
    const { result, logged } = await callOneTool({ count: 3, counted_at: '2026-05-01T09:00:00Z' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ count: 3, counted_at: '2026-05-01T09:00:00Z' });
    expect(logged).toEqual([]);
  });

  it.each([
    ['a wrong type', { count: 'three', counted_at: '2026-05-01T09:00:00Z' }, 'count must be integer'],
    ['a missing field', { count: 3 }, 'counted_at is required'],
    ['an unknown field', { count: 3, counted_at: '2026-05-01T09:00:00Z', extra: true }, 'extra is not a known field'],
    ['a bad format', { count: 3, counted_at: 'yesterday' }, 'counted_at must be an RFC 3339 date-time'],
  ])('turns a result with %s into an internal error for the model and a logged bug naming the field', async (_case, structured, field) => {
    const { result, logged } = await callOneTool(structured);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(resultText(result)).toMatch(/^Error \(internal_error\)/);
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ level: 'error', msg: 'mcp request failed' });
    expect(JSON.parse(logged[0]!).error).toContain(`count_things returned a result that does not match its output schema: ${field}`);
  });
});

describe("every MCP tool's real result conforms to the output schema tools/list shows", () => {
  let t: TestServer;
  let client: Client;
  let meeting: { id: string; code: string };
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);

  beforeAll(async () => {
    t = await startTestServer();
    seedCorpus(t.services, principalIn(t, t.org.id));
    const row = seedMeeting(t, { title: 'Release planning' });
    seedPoll(t, seedParticipant(t, row.id));
    seedTranscript(t.services, row.id);
    seedSummary(t.services, row.id);
    meeting = { id: row.id, code: row.code };
    client = await connectMcpClient(t.url, t.key(['meetings:read', 'meetings:write', 'transcripts:read']));
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it('for each tool, called as a model would', async () => {
    const calls: Record<string, Record<string, unknown>> = {
      list_meetings: {},
      get_meeting: { meeting: meeting.code },
      list_participants: { meeting: meeting.id },
      get_transcript: { meeting: meeting.id },
      get_live_transcript: { meeting: meeting.id },
      get_summary: { meeting: meeting.id },
      search_content: { query: 'certificate' },
      ask_meetings: { question: 'What caused the checkout outage?' },
      list_tasks: {},
      create_meeting: { title: 'Quick sync' },
      schedule_meeting: { title: 'Board meeting', scheduled_at: '2026-12-01T09:30:00+01:00', duration_minutes: 90 },
    };
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    expect(Object.keys(calls).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    for (const tool of tools) {
      const result = await client.callTool({ name: tool.name, arguments: calls[tool.name] });
      expect({ tool: tool.name, isError: result.isError ?? false, text: result.isError ? resultText(result) : '' }).toEqual({
        tool: tool.name,
        isError: false,
        text: '',
      });
      const validate = ajv.compile(tool.outputSchema!);
      expect({ tool: tool.name, valid: validate(result.structuredContent), errors: validate.errors ?? null }).toEqual({
        tool: tool.name,
        valid: true,
        errors: null,
      });
    }
    const got = await client.callTool({ name: 'get_meeting', arguments: { meeting: meeting.id } });
    expect((got.structuredContent as { polls: unknown[] }).polls).toEqual([
      expect.objectContaining({
        question: 'Ship on Friday?',
        status: 'open',
        options: [expect.objectContaining({ text: 'Yes', votes: 1 }), expect.objectContaining({ votes: 0 })],
      }),
    ]);
  });
});
