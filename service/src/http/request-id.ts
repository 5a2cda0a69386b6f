import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

declare module 'express-serve-static-core' {
  interface Request {
    /** The X-Request-Id of this request, echoed on the response and in every problem. */
    requestId: string;
  }
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a well-formed incoming X-Request-Id or makes one (a random per-process prefix and a counter: unique without a random draw per request), and echoes it on the response. */
export function requestId(): RequestHandler {
  const prefix = `req_${randomBytes(6).toString('hex')}`;
  let counter = 0;
  return function requestIdMiddleware(req, res, next) {
    const incoming = req.get('X-Request-Id');
    req.requestId = incoming && SAFE_ID.test(incoming) ? incoming : `${prefix}${(counter++).toString(16).padStart(12, '0')}`;
    res.set('X-Request-Id', req.requestId);
    next();
  };
}
