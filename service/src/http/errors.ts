import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../shared/logger';

/** Machine-readable error codes of the API. */
export type ErrorCode =
  | 'unauthorized'
  | 'insufficient_scope'
  | 'not_found'
  | 'invalid_json'
  | 'validation_failed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'method_not_allowed'
  | 'internal_error';

/** One invalid input: the parameter (body field path, query or header name) and what is wrong. */
export interface FieldError {
  param: string;
  message: string;
}

const TITLES: Record<ErrorCode, string> = {
  unauthorized: 'Unauthorized',
  insufficient_scope: 'Insufficient scope',
  not_found: 'Not found',
  invalid_json: 'Invalid JSON',
  validation_failed: 'Validation failed',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Rate limited',
  method_not_allowed: 'Method not allowed',
  internal_error: 'Internal error',
};

/** An error that becomes an RFC 9457 problem+json response; the only error type code throws. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    readonly detail: string,
    readonly extra: { param?: string; errors?: FieldError[]; required_scope?: string } = {},
  ) {
    super(detail);
  }

  /** 400 validation_failed for one or more invalid inputs; `param` names the first. */
  static invalid(errors: FieldError[]): ApiError {
    const first = errors[0] ?? { param: 'body', message: 'is invalid' };
    const detail = errors.map((e) => `${e.param} ${e.message}`).join('; ');
    return new ApiError('validation_failed', 400, detail, { param: first.param, errors });
  }

  static notFound(what: string): ApiError {
    return new ApiError('not_found', 404, `${what} not found`);
  }

  static conflict(detail: string): ApiError {
    return new ApiError('conflict', 409, detail);
  }
}

/** The problem+json body of an error answer. */
export function problemBody(err: ApiError, requestId: string): Record<string, unknown> {
  return {
    type: `urn:svc:error:${err.code}`,
    title: TITLES[err.code],
    status: err.status,
    detail: err.detail,
    code: err.code,
    request_id: requestId,
    ...err.extra,
  };
}

/** Answers every unmatched request with a 404 problem. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', 404, `No route for ${req.method} ${req.path}`));
};

/** The one error middleware: known errors become their problem, body-parser errors are mapped, the rest is a logged 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const apiError = toApiError(err);
    if (apiError.status >= 500) {
      logger.error('request failed', {
        request_id: req.requestId,
        method: req.method,
        path: req.path,
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    res
      .status(apiError.status)
      .type('application/problem+json')
      .send(JSON.stringify(problemBody(apiError, req.requestId)));
  };
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const type = (err as { type?: string } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 400, 'The request body is not valid JSON', { param: 'body' });
    case 'entity.too.large':
      return new ApiError('payload_too_large', 413, 'The request body is larger than 1 MB', { param: 'body' });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 415, 'Send the body as UTF-8 JSON', { param: 'Content-Type' });
    case 'request.aborted':
      return new ApiError('validation_failed', 400, 'The request body was cut off', { param: 'body' });
    default:
      return new ApiError('internal_error', 500, 'Something went wrong on our side; the request id identifies it in our logs');
  }
}
