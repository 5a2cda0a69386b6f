import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The official MCP SDK client, connected (initialized) to `{baseUrl}/api/v1/mcp` with `key`; close it with `client.close()`. */
export async function connectMcpClient(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'svc-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/api/v1/mcp', baseUrl), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** The text of a tool result's first content block. */
export function resultText(result: object): string {
  const first = ((result as { content?: unknown }).content as { type: string; text?: string }[] | undefined)?.[0];
  return first?.type === 'text' ? (first.text ?? '') : '';
}

/** The MCP tools in the order tools/list shows them, written out independently of the tool registry. */
export const MCP_TOOL_NAMES = [
  'list_meetings',
  'get_meeting',
  'list_participants',
  'get_transcript',
  'get_live_transcript',
  'get_summary',
  'search_content',
  'ask_meetings',
  'list_tasks',
  'create_meeting',
  'schedule_meeting',
];
