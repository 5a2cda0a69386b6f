import type { Request } from 'express';
import { ApiError } from './errors';

/** One page of a list answer. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** What a list endpoint asks its repo for: rows after `after` (an id, exclusive), newest first. */
export interface PageRequest {
  limit: number;
  after: string | null;
}

/** A single-valued query parameter, or a 400 when it was sent more than once. */
export function queryParam(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw ApiError.invalid([{ param: name, message: 'must be given once, as a string' }]);
  return value;
}

/** Reads `limit` (1..100, default 50) from the query. */
export function parseLimit(req: Request, fallback = 50): number {
  const raw = queryParam(req, 'limit');
  if (raw === undefined) return fallback;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > 100) {
    throw ApiError.invalid([{ param: 'limit', message: 'must be an integer from 1 to 100' }]);
  }
  return limit;
}

/** Reads `limit` and the opaque `cursor` of the query into a page request. */
export function parsePageRequest(req: Request): PageRequest {
  const limit = parseLimit(req);
  const cursor = queryParam(req, 'cursor');
  return { limit, after: cursor === undefined ? null : decodeCursor(cursor) };
}

/** Builds a page from up to `limit + 1` rows fetched newest first. */
export function toPage<Row extends { id: string }, T>(rows: Row[], limit: number, view: (row: Row) => T): Page<T> {
  const has_more = rows.length > limit;
  const pageRows = has_more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { data: pageRows.map(view), has_more, next_cursor: has_more && last ? encodeCursor(last.id) : null };
}

function encodeCursor(id: string): string {
  return Buffer.from(JSON.stringify({ after: id })).toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after === 'string' && /^[a-z]{3}_[0-9a-z]{26}$/.test(parsed.after)) return parsed.after;
  } catch {
    // fall through to the 400 below
  }
  throw ApiError.invalid([{ param: 'cursor', message: 'is not a cursor this API returned' }]);
}
