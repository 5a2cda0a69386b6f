/** One event of an iCalendar file (RFC 5545): times are epoch milliseconds and are written in UTC. */
export interface CalendarEvent {
  /** Globally unique and stable for the same event, so a second download updates the calendar entry instead of adding one. */
  uid: string;
  start: number;
  end: number;
  summary: string;
  /** When the file was made (DTSTAMP). */
  stamp: number;
  /** A link to the event (written as a URI, not escaped as text). */
  url?: string;
  description?: string;
  /** The event's own IANA time zone, a hint for calendars that show it (X-WR-TIMEZONE); times stay in UTC. */
  timeZone?: string;
}

/** An iCalendar file (`text/calendar`) holding `event`: CRLF line ends, text escaped, long lines folded at 75 octets. */
export function icsCalendar(event: CalendarEvent): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//svc//meetings//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'BEGIN:VEVENT',
    `UID:${escapeText(event.uid)}`,
    `DTSTAMP:${utcStamp(event.stamp)}`,
    `DTSTART:${utcStamp(event.start)}`,
    `DTEND:${utcStamp(event.end)}`,
    `SUMMARY:${escapeText(event.summary)}`,
    ...(event.url ? [`URL:${event.url.replace(CONTROL_CHARACTERS, '')}`] : []),
    ...(event.description ? [`DESCRIPTION:${escapeText(event.description)}`] : []),
    ...(event.timeZone ? [`X-WR-TIMEZONE:${escapeText(event.timeZone)}`] : []),
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return lines.map(fold).join('\r\n') + '\r\n';
}

// eslint-disable-next-line no-control-regex -- control characters are what it matches: iCalendar values may not hold them
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** `20261126T142300Z`: the UTC date-time form of RFC 5545 (seconds kept, milliseconds dropped). */
export function utcStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** A TEXT value: backslash, semicolon and comma escaped, line breaks as `\n`, other control characters dropped. */
export function escapeText(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n')
    .replace(CONTROL_CHARACTERS, '');
}

/** Splits a content line into lines of at most 75 octets, each continuation starting with a space, never inside a UTF-8 character. */
function fold(line: string): string {
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char, 'utf8');
    // The first line may hold 75 octets; a continuation holds 74 after its leading space.
    const limit = parts.length === 0 ? 75 : 74;
    if (octets + size > limit) {
      parts.push(current);
      current = '';
      octets = 0;
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}
