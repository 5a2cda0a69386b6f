import express, { type RequestHandler } from 'express';
import { AppError } from '../shared/errors';

const JSON_TYPES = ['application/json', 'application/*+json'];

/** Rejects a request that has a body in anything but JSON with 415. */
const requireJsonBody: RequestHandler = function requireJsonBodyMiddleware(req, _res, next) {
  const hasBody = Number(req.get('Content-Length') ?? 0) > 0 || req.get('Transfer-Encoding') !== undefined;
  if (hasBody && !req.is(JSON_TYPES)) {
    return next(new AppError('unsupported_media_type', 'Send the body as application/json', { param: 'Content-Type' }));
  }
  next();
};

/** Body handling of the API: JSON only, at most 1 MB, objects or arrays only. */
export const jsonBody: RequestHandler[] = [requireJsonBody, express.json({ limit: '1mb', strict: true, type: JSON_TYPES })];
