/** The badge tone of each meeting status. */
export const STATUS_TONE = { scheduled: 'info', live: 'ok', ended: 'muted', cancelled: 'bad' } as const;

/** The viewer's own IANA time zone. */
export function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The offset in minutes of `timeZone` at the instant `utcMs`. */
function offsetAt(timeZone: string, utcMs: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(utcMs))
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/** An RFC 3339 date-time for a wall-clock `date` (YYYY-MM-DD) and `time` (HH:MM) in `timeZone`, with that zone's offset. */
export function zonedDateTime(date: string, time: string, timeZone: string): string {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  const offset = offsetAt(timeZone, wall - offsetAt(timeZone, wall) * 60_000);
  if (offset === 0) return `${date}T${time}:00Z`;
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date}T${time}:00${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The wall-clock date (YYYY-MM-DD) and time (HH:MM) of an instant in `timeZone`: what a form shows for it. */
export function wallClock(iso: string, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** The short name of `timeZone` at `ms` in the viewer's language ("EST", "CET", or "GMT+9" where it has none). */
function zoneLabel(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat(undefined, { timeZone, timeZoneName: 'short' })
    .formatToParts(new Date(ms))
    .find((p) => p.type === 'timeZoneName')!.value;
}

/** A meeting's start as its own zone shows it and, when the viewer is elsewhere, as the viewer's clock shows it. */
export interface MeetingTimes {
  /** "Fri, Jan 15, 2027, 10:30 AM GMT+9" (in the meeting's zone, or the viewer's for a meeting without one). */
  there: string;
  /** The meeting's IANA zone, when it has one. */
  zone: string | null;
  /** "2:30 AM your time" or, on another day, "Fri, Jan 15, 2:30 AM your time"; null when the zones agree. */
  here: string | null;
}

/** The start of a meeting in its own time zone and in the viewer's. */
export function meetingTimes(iso: string, timeZone: string | null, viewer = viewerZone()): MeetingTimes {
  const ms = Date.parse(iso);
  const zone = timeZone ?? viewer;
  const full = (tz: string) =>
    `${new Intl.DateTimeFormat(undefined, { timeZone: tz, weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }).format(ms)} ${zoneLabel(ms, tz)}`;
  const sameOffset = offsetAt(zone, ms) === offsetAt(viewer, ms);
  if (!timeZone || sameOffset) return { there: full(zone), zone: timeZone, here: null };
  const sameDay = wallClock(iso, zone).date === wallClock(iso, viewer).date;
  const here = new Intl.DateTimeFormat(undefined, {
    timeZone: viewer,
    hour: 'numeric',
    minute: '2-digit',
    ...(sameDay ? {} : { weekday: 'short', month: 'short', day: 'numeric' }),
  }).format(ms);
  return { there: full(zone), zone: timeZone, here: `${here} your time` };
}
