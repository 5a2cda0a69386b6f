/** Machine-readable error codes; each adapter (HTTP, WebSocket, MCP, GraphQL) maps them to its wire format. */
export type ErrorCode =
  | 'unauthorized'
  | 'insufficient_scope'
  | 'forbidden'
  | 'not_found'
  | 'invalid_json'
  | 'validation_failed'
  | 'conflict'
  | 'payload_too_large'
  | 'range_not_satisfiable'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'meeting_unavailable'
  | 'method_not_allowed'
  | 'bad_gateway'
  | 'internal_error';

/** One invalid input: the parameter (body field path, query or header name) and what is wrong. */
export interface FieldError {
  param: string;
  message: string;
}

/** What an error carries beyond its code and detail. */
export interface ErrorExtra {
  param?: string;
  errors?: FieldError[];
  required_scope?: string;
  /** meeting_unavailable: why the meeting cannot be joined; forbidden: why the request is refused. */
  reason?: string;
  /** meeting_unavailable with reason not_open: the scheduled start and when guests may join (ISO 8601). */
  starts_at?: string;
  opens_at?: string;
}

/** The one error type the code throws: a code and a detail for people, no transport status. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: ErrorExtra = {},
  ) {
    super(detail);
  }

  /** validation_failed for one or more invalid inputs; `param` names the first. */
  static invalid(errors: FieldError[]): AppError {
    const first = errors[0] ?? { param: 'body', message: 'is invalid' };
    const detail = errors.map((e) => `${e.param} ${e.message}`).join('; ');
    return new AppError('validation_failed', detail, { param: first.param, errors });
  }

  /** not_found for `what`, e.g. "Meeting abc-defg-hij". */
  static notFound(what: string): AppError {
    return new AppError('not_found', `${what} not found`);
  }

  /** conflict: the request cannot apply to the current state. */
  static conflict(detail: string, extra: ErrorExtra = {}): AppError {
    return new AppError('conflict', detail, extra);
  }

  /** insufficient_scope: the caller lacks `scope`. */
  static missingScope(scope: string, detail = `This API key lacks the ${scope} scope`): AppError {
    return new AppError('insufficient_scope', detail, { required_scope: scope });
  }
}
