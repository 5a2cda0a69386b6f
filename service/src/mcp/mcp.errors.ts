import { ErrorCode as JsonRpcCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, type ErrorCode } from '../shared/errors';
import type { Logger } from '../shared/logger';

/** MCP's code for a resource that does not exist (the spec's -32002). */
const RESOURCE_NOT_FOUND = -32002;

const HINTS: Partial<Record<ErrorCode, string>> = {
  not_found: 'Check the meeting id or join code with list_meetings.',
  validation_failed: 'Fix the arguments as described and call the tool again.',
  insufficient_scope: 'Ask the owner of this API key for a key with that scope.',
  conflict: 'The meeting is in a state that does not allow this; get_meeting shows its status.',
};

const RPC_CODES: Partial<Record<ErrorCode, number>> = {
  not_found: RESOURCE_NOT_FOUND,
  validation_failed: JsonRpcCode.InvalidParams,
  insufficient_scope: JsonRpcCode.InvalidRequest,
};

function known(err: unknown, logger: Logger): AppError {
  if (err instanceof AppError) return err;
  logger.error('mcp request failed', { error: err instanceof Error ? err.message : String(err), stack: (err as Error)?.stack });
  return new AppError('internal_error', 'Something went wrong on the server; try again later');
}

/** A failed tool call as the `isError` result a model reads: the error code, what went wrong and what to do about it. */
export function toolErrorResult(err: unknown, logger: Logger): CallToolResult {
  const error = known(err, logger);
  const hint = HINTS[error.code];
  return { isError: true, content: [{ type: 'text', text: `Error (${error.code}): ${error.detail}.${hint ? ` ${hint}` : ''}` }] };
}

/** A failed resource read or list as a JSON-RPC error (MCP has no isError for resources). */
export function resourceError(err: unknown, logger: Logger): McpError {
  const error = known(err, logger);
  return new McpError(RPC_CODES[error.code] ?? JsonRpcCode.InternalError, error.detail, { code: error.code, ...error.extra });
}
