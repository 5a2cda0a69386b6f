import type { RequestHandler } from 'express';
import type { Scope } from '../keys/scopes';
import { AppError } from '../shared/errors';

/** Rejects requests without a valid key with one 401 that does not reveal why the key failed. */
export const requireKey: RequestHandler = function requireKeyMiddleware(req, res, next) {
  if (req.principal) return next();
  res.set('WWW-Authenticate', 'Bearer realm="svc"');
  next(new AppError('unauthorized', 'Missing or invalid API key. Send Authorization: Bearer svc_sk_...'));
};

/** Rejects keys that lack `scope` with 403 insufficient_scope naming the scope. */
export function requireScope(scope: Scope): RequestHandler {
  return function requireScopeMiddleware(req, _res, next) {
    if (req.principal?.key.scopes.includes(scope)) return next();
    next(AppError.missingScope(scope));
  };
}
