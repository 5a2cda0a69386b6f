import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, type ErrorCode } from '../shared/errors';
import type { Logger } from '../shared/logger';

const STATUS: Record<ErrorCode, number> = {
  unauthorized: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  invalid_json: 400,
  validation_failed: 400,
  conflict: 409,
  payload_too_large: 413,
  range_not_satisfiable: 416,
  unsupported_media_type: 415,
  rate_limited: 429,
  meeting_unavailable: 409,
  method_not_allowed: 405,
  bad_gateway: 502,
  internal_error: 500,
};

const TITLES: Record<ErrorCode, string> = {
  unauthorized: 'Unauthorized',
  insufficient_scope: 'Insufficient scope',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  invalid_json: 'Invalid JSON',
  validation_failed: 'Validation failed',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  range_not_satisfiable: 'Range not satisfiable',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Rate limited',
  meeting_unavailable: 'Meeting unavailable',
  method_not_allowed: 'Method not allowed',
  bad_gateway: 'Bad gateway',
  internal_error: 'Internal error',
};

/** The HTTP status of an error code. */
export function httpStatusOf(code: ErrorCode): number {
  return STATUS[code];
}

/** The problem+json body of an error answer. */
export function problemBody(err: AppError, requestId: string): Record<string, unknown> {
  return {
    type: `urn:svc:error:${err.code}`,
    title: TITLES[err.code],
    status: STATUS[err.code],
    detail: err.detail,
    code: err.code,
    request_id: requestId,
    ...err.extra,
  };
}

/** Answers every unmatched request with a 404 problem. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `No route for ${req.method} ${req.path}`));
};

/** The one error middleware: known errors become their problem, body-parser errors are mapped, the rest is a logged 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const appError = toAppError(err);
    const status = STATUS[appError.code];
    if (status >= 500) {
      logger.error('request failed', {
        request_id: req.requestId,
        method: req.method,
        path: req.path,
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    res
      .status(status)
      .type('application/problem+json')
      .send(JSON.stringify(problemBody(appError, req.requestId)));
  };
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  // The router's decodeURIComponent of a path parameter (%ZZ, truncated or overlong UTF-8).
  if (err instanceof URIError)
    return new AppError('validation_failed', 'The URL path is not valid percent-encoded UTF-8', { param: 'path' });
  const { type, status } = (err ?? {}) as { type?: string; status?: number };
  // body-parser reports a body that does not decompress (a corrupt Content-Encoding) as a bare 400 carrying zlib's error.
  if (type === undefined && status === 400) {
    return new AppError('invalid_json', 'The request body could not be decompressed as its Content-Encoding says', { param: 'body' });
  }
  switch (type) {
    case 'entity.parse.failed':
      return new AppError('invalid_json', 'The request body is not valid JSON', { param: 'body' });
    case 'entity.too.large':
      return new AppError('payload_too_large', 'The request body is larger than 1 MB', { param: 'body' });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Send the body as UTF-8 JSON', { param: 'Content-Type' });
    case 'request.aborted':
      return new AppError('validation_failed', 'The request body was cut off', { param: 'body' });
    default:
      return new AppError('internal_error', 'Something went wrong on our side; the request id identifies it in our logs');
  }
}
