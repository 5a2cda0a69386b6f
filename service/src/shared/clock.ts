/** A source of the current time in epoch milliseconds; injected so tests control time. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to, for tests of time windows and schedules. */
export class ManualClock implements Clock {
  constructor(private current = Date.parse('2026-01-01T00:00:00Z')) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}

/** ISO 8601 UTC with milliseconds, the format of every stored and returned timestamp. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

/** `seconds` as m:ss or h:mm:ss. */
export function clockTime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}
