import { escapeText, icsCalendar, utcStamp } from './ics';

const base = {
  uid: 'mtg_01abc@svc.example.com',
  start: Date.parse('2027-01-15T10:30:00+09:00'),
  end: Date.parse('2027-01-15T11:15:00+09:00'),
  summary: 'Board review',
  url: 'https://svc.example.com/m/abc-defg-hij',
  stamp: Date.parse('2026-11-26T14:00:00.123Z'),
};

/** The content lines, unfolded as a calendar reads them. */
function unfold(text: string): string[] {
  return text.replace(/\r\n /g, '').split('\r\n');
}

describe('icsCalendar', () => {
  it('writes one VEVENT with UID, DTSTAMP, DTSTART/DTEND in UTC, SUMMARY and URL, every line ending in CRLF', () => {
    const text = icsCalendar({ ...base, timeZone: 'Asia/Tokyo' });
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    const lines = unfold(text);
    expect(lines.slice(0, 4)).toEqual(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//svc//meetings//EN', 'CALSCALE:GREGORIAN']);
    expect(lines).toEqual(
      expect.arrayContaining([
        'BEGIN:VEVENT',
        'UID:mtg_01abc@svc.example.com',
        'DTSTAMP:20261126T140000Z',
        'DTSTART:20270115T013000Z',
        'DTEND:20270115T021500Z',
        'SUMMARY:Board review',
        'URL:https://svc.example.com/m/abc-defg-hij',
        'X-WR-TIMEZONE:Asia/Tokyo',
        'END:VEVENT',
      ]),
    );
    expect(lines.at(-2)).toBe('END:VCALENDAR');
    expect(lines.indexOf('BEGIN:VEVENT')).toBeLessThan(lines.indexOf('END:VEVENT'));
    expect(lines.filter((l) => l === 'BEGIN:VEVENT')).toHaveLength(1);
  });

  it('escapes backslashes, semicolons, commas and line breaks in text and drops other control characters', () => {
    expect(escapeText('a\\b;c,d\ne\r\nf\u0007g')).toBe('a\\\\b\\;c\\,d\\ne\\nfg');
    const lines = unfold(icsCalendar({ ...base, summary: 'Q1; plans, risks\nand more' }));
    expect(lines).toContain('SUMMARY:Q1\\; plans\\, risks\\nand more');
  });

  it('folds lines longer than 75 octets without splitting a multi-byte character, and unfolds to the original', () => {
    const summary = 'Réunion trimestrielle — ' + '日本語のタイトル'.repeat(8);
    const text = icsCalendar({ ...base, summary });
    for (const line of text.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(text).toContain('\r\n ');
    expect(unfold(text)).toContain(`SUMMARY:${summary}`);
    expect(text).not.toContain('\uFFFD');
  });

  it('writes UTC stamps without milliseconds', () => {
    expect(utcStamp(Date.parse('2027-03-05T07:08:09.999Z'))).toBe('20270305T070809Z');
  });
});
