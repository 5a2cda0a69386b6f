/** A meeting as the API returns it. */
export interface Meeting {
  id: string;
  code: string;
  title: string;
  kind: 'meeting' | 'webinar';
  slug: string | null;
  scheduled_at: string;
  duration_minutes: number;
  status: 'scheduled' | 'live' | 'ended' | 'cancelled';
  join_url: string;
  organization_id: string;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
}

/** The badge tone of each meeting status. */
export const STATUS_TONE = { scheduled: 'info', live: 'ok', ended: 'muted', cancelled: 'bad' } as const;

/** The offset (`+02:00`, `Z`) of `timeZone` at the instant `utcMs`. */
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
