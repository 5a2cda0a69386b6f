/**
 * Which of a webinar's routers takes its next viewer. Splitting viewers evenly by count leaves CPU unused
 * whenever the workers are not equally fast or not equally busy (other rooms on the same worker, a slower core
 * of a VM): the room is full once its busiest worker is. So each router's worker is read for CPU, and the viewer
 * goes where the worker's CPU after one more viewer is predicted lowest, taking the cost of one viewer as the
 * worker's busy share over the room's peers on it when it was measured. Until every router has a reading over
 * enough peers (a new router, a worker not measured yet), and while no worker is busy enough for the split to
 * matter, viewers are split by count; a nearly idle worker's viewers are costed as on the cheapest busy worker (its
 * own reading is mostly noise). The worker's whole load is charged to the room's viewers on it, other rooms' included:
 * a shared worker looks dearer than it is, which errs on the safe side.
 */

/** A worker's busy share of its core (0..1) over its last sampling interval, and when that interval ended (ms). */
export interface CpuReading {
  share: number;
  at: number;
}

/** A router of the webinar and the peers placed on it. */
export interface WebinarRouter<S> {
  shard: S;
  peers: number;
}

/** Below this many peers a router's reading says more about its fixed costs than about a viewer's. */
export const MIN_MEASURED_PEERS = 10;

/** Readings count once a router's worker is at least this busy: below it, the split by count leaves plenty free. */
export const BUSY_SHARE = 0.2;

/** Picks a webinar's router for its next viewer; see the file comment. */
export class WebinarBalancer<S extends object> {
  /** A viewer's predicted cost by router, from the reading taken at `at`. */
  private readonly costs = new WeakMap<S, { at: number; share: number; perPeer: number }>();

  constructor(private readonly cpuOf: (shard: S) => CpuReading | undefined) {}

  /** The router predicted least busy after one more viewer, else the one with the fewest peers (the first of equals). */
  pick(routers: readonly WebinarRouter<S>[]): S | undefined {
    const byCount = [...routers].sort((a, b) => a.peers - b.peers);
    const costs = byCount.map((router) => this.cost(router));
    const busy = costs.filter((cost) => cost !== undefined && cost.share >= BUSY_SHARE);
    if (costs.some((cost) => cost === undefined) || busy.length === 0) return byCount[0]?.shard;
    // A nearly idle worker's reading is mostly noise (0 would draw every viewer): its viewers cost what they cost on the
    // cheapest busy worker (the others may carry other rooms).
    const idleCost = Math.min(...busy.map((cost) => cost!.perPeer));
    const predicted = byCount.map((router, i) => (costs[i]!.share >= BUSY_SHARE ? costs[i]!.perPeer : idleCost) * (router.peers + 1));
    return byCount[predicted.indexOf(Math.min(...predicted))]?.shard;
  }

  private cost({ shard, peers }: WebinarRouter<S>): { share: number; perPeer: number } | undefined {
    const reading = this.cpuOf(shard);
    const known = this.costs.get(shard);
    if (!reading) return undefined;
    if (known?.at === reading.at) return known;
    // A new reading is weighed against the peers there now: the interval it covers ended just before.
    if (peers < MIN_MEASURED_PEERS) return undefined;
    const cost = { at: reading.at, share: reading.share, perPeer: reading.share / peers };
    this.costs.set(shard, cost);
    return cost;
  }
}
