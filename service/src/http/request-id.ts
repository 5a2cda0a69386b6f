import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a well-formed incoming X-Request-Id or makes one, and echoes it on the response. */
export const requestId: RequestHandler = function requestIdMiddleware(req, res, next) {
  const incoming = req.get('X-Request-Id');
  req.requestId = incoming && SAFE_ID.test(incoming) ? incoming : `req_${randomBytes(12).toString('hex')}`;
  res.set('X-Request-Id', req.requestId);
  next();
};
