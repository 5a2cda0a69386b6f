import type { Request } from 'express';
import { AppError } from '../shared/errors';
import { decodeCursor, PAGE_LIMITS, type PageRequest } from '../shared/paging';

/** A single-valued query parameter, or a 400 when it was sent more than once. */
export function queryParam(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw AppError.invalid([{ param: name, message: 'must be given once, as a string' }]);
  return value;
}

/** Reads `limit` (1..100, default 50) from the query. */
export function parseLimit(req: Request, fallback: number = PAGE_LIMITS.default): number {
  const raw = queryParam(req, 'limit');
  if (raw === undefined) return fallback;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < PAGE_LIMITS.min || limit > PAGE_LIMITS.max) {
    throw AppError.invalid([{ param: 'limit', message: `must be an integer from ${PAGE_LIMITS.min} to ${PAGE_LIMITS.max}` }]);
  }
  return limit;
}

/** Reads `limit` and the opaque `cursor` of the query into a page request. */
export function parsePageRequest(req: Request): PageRequest {
  const limit = parseLimit(req);
  const cursor = queryParam(req, 'cursor');
  return { limit, after: cursor === undefined ? null : decodeCursor(cursor) };
}
