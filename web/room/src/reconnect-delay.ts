const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 3000];

/**
 * The wait before reconnect attempt `attempt` (0 first): 250 ms, 500 ms, 1 s, 2 s, then 3 s each time, plus up to
 * 30 % at random so the pages of a restarted service do not all come back at the same moment.
 */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const base = RECONNECT_DELAYS_MS[Math.min(Math.max(0, attempt), RECONNECT_DELAYS_MS.length - 1)]!;
  return base + random() * base * 0.3;
}
