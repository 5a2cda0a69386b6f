import { AppError } from './errors';
import { decodeCursor, encodeCursor, toPage } from './paging';

describe('paging', () => {
  const rows = ['mtg_00000000000000000000000003', 'mtg_00000000000000000000000002', 'mtg_00000000000000000000000001'].map((id) => ({ id }));

  it('answers has_more and a cursor after the last row shown when a row beyond the limit was fetched', () => {
    const page = toPage(rows, 2, (r) => r.id);
    expect(page.data).toEqual([rows[0]!.id, rows[1]!.id]);
    expect(page.has_more).toBe(true);
    expect(decodeCursor(page.next_cursor!)).toBe(rows[1]!.id);
  });

  it('ends with has_more false and a null cursor on the last page', () => {
    expect(toPage(rows, 3, (r) => r.id)).toEqual({ data: rows.map((r) => r.id), has_more: false, next_cursor: null });
  });

  it.each([['not base64 json'], [Buffer.from('{"after":"x"}').toString('base64url')], [encodeCursor('drop table')], ['']])(
    'refuses a cursor it did not issue: %s',
    (cursor) => {
      const err = (() => {
        try {
          decodeCursor(cursor, 'since');
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'validation_failed', extra: { param: 'since' } });
    },
  );
});
