import { AppError } from './errors';

/** One page of a list answer. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** What a list asks its repo for: rows after `after` (an id, exclusive), newest first. */
export interface PageRequest {
  limit: number;
  after: string | null;
}

/** The smallest, largest and default page size. */
export const PAGE_LIMITS = { min: 1, max: 100, default: 50 } as const;

/** Builds a page from up to `limit + 1` rows fetched newest first. */
export function toPage<Row extends { id: string }, T>(rows: Row[], limit: number, view: (row: Row) => T): Page<T> {
  const has_more = rows.length > limit;
  const pageRows = has_more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { data: pageRows.map(view), has_more, next_cursor: has_more && last ? encodeCursor(last.id) : null };
}

/** The opaque cursor that continues a list after the row `id`. */
export function encodeCursor(id: string): string {
  return Buffer.from(JSON.stringify({ after: id })).toString('base64url');
}

/** The row id inside a cursor this service returned, or a validation error naming `param`. */
export function decodeCursor(cursor: string, param = 'cursor'): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after === 'string' && /^[a-z]{3}_[0-9a-z]{26}$/.test(parsed.after)) return parsed.after;
  } catch {
    // fall through to the error below
  }
  throw AppError.invalid([{ param, message: 'is not a cursor this API returned' }]);
}
