import { isoAt } from '../shared/clock';
import type { RaisedHand } from './room.protocol';

/** A room's raised hands in the order they went up; a hand raised again keeps its place. */
export class RaisedHands {
  private readonly raised = new Map<string, { name: string; at: number }>();

  /** Raises `peerId`'s hand; false when it already was. */
  raise(peerId: string, name: string, now: number): boolean {
    if (this.raised.has(peerId)) return false;
    this.raised.set(peerId, { name, at: now });
    return true;
  }

  /** Lowers `peerId`'s hand; false when it was not raised. */
  lower(peerId: string): boolean {
    return this.raised.delete(peerId);
  }

  /** Lowers every hand; returns whose were raised. */
  lowerAll(): string[] {
    const lowered = [...this.raised.keys()];
    this.raised.clear();
    return lowered;
  }

  /** True when `peerId`'s hand is up. */
  isRaised(peerId: string): boolean {
    return this.raised.has(peerId);
  }

  /** The raised hands, first raised first (a Map keeps insertion order). */
  list(): RaisedHand[] {
    return [...this.raised].map(([peerId, { name, at }], index) => ({ peerId, name, raisedAt: isoAt(at), order: index + 1 }));
  }
}
