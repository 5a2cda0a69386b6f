/**
 * Which media nodes the control plane could not dial lately. A node may keep heartbeating in Redis while its control
 * channel refuses or never answers (a wrong address, a firewall, a hung process); dialling it on every placement
 * would make each new room wait out the handshake. A failed dial keeps the node out of placement for a while that
 * doubles with each further failure (2 s, 4 s, ... up to 16 s, on an injected clock), then it is dialled again;
 * a dial that succeeds clears its entry.
 */

/** How long a node stays out of placement after its first failed dial (two heartbeats). */
export const DIAL_BACKOFF_FIRST_MS = 2_000;
/** The longest a node that keeps failing stays out between two dials. */
export const DIAL_BACKOFF_MAX_MS = 16_000;

interface Failure {
  failures: number;
  retryAt: number;
}

/** The nodes whose last dial failed, and when each may be dialled again. */
export class DialBackoff {
  private readonly failed = new Map<string, Failure>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Records a failed dial of `id`; returns how long the node now stays out of placement. */
  failedDial(id: string): number {
    const failures = (this.failed.get(id)?.failures ?? 0) + 1;
    const waitMs = Math.min(DIAL_BACKOFF_FIRST_MS * 2 ** (failures - 1), DIAL_BACKOFF_MAX_MS);
    this.failed.set(id, { failures, retryAt: this.now() + waitMs });
    return waitMs;
  }

  /** Forgets `id`'s failures (its dial succeeded, or it left the registry). */
  clear(id: string): void {
    this.failed.delete(id);
  }

  /** True while `id` waits before its next dial. */
  waiting(id: string): boolean {
    const entry = this.failed.get(id);
    return entry !== undefined && this.now() < entry.retryAt;
  }

  /** Keeps the entries of the nodes in `live` only. */
  retain(live: ReadonlySet<string>): void {
    for (const id of [...this.failed.keys()]) if (!live.has(id)) this.failed.delete(id);
  }
}
