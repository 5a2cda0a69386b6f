/**
 * Which media node a new shard goes to: the least-loaded node with room left, by the CPU its workers use and the
 * consumers it forwards (not round robin), preferring nodes with a worker the room does not use yet.
 */
import type { ShardPlace } from '../media-shard';
import type { NodeRecord } from './node-registry';

/** Consumers one worker forwards at full load, for weighing consumers against CPU (about a 300 pkt/s video each). */
export const CONSUMERS_PER_WORKER = 800;
/** What one shard placed since the node's last heartbeat adds to its score, so a burst of new rooms spreads. */
export const RECENT_PLACEMENT_WEIGHT = 0.02;

/** A node as placement sees it: its record, and what the control plane knows that the heartbeat may not show yet. */
export interface PlacementCandidate {
  record: NodeRecord;
  /** Peers the control plane has on the node (its heartbeat may lag). */
  peers: number;
  /** Shards placed on the node since its last heartbeat was read. */
  recent: number;
}

/** A node's load score: the busy share of its workers plus its consumers' share of their capacity (lower is better). */
export function loadScore(candidate: PlacementCandidate): number {
  const { load } = candidate.record;
  const workers = Math.max(1, load.workers);
  return load.cpu + load.consumers / (workers * CONSUMERS_PER_WORKER) + candidate.recent * RECENT_PLACEMENT_WEIGHT;
}

/** True when the node may take another peer: not draining, and below its SVC_NODE_MAX_PEERS. */
export function hasRoom(candidate: PlacementCandidate): boolean {
  const { record } = candidate;
  if (record.draining) return false;
  const peers = Math.max(candidate.peers, record.load.peers);
  return record.maxPeers === null || peers < record.maxPeers;
}

/** The worker slots of `nodeId` that `avoid` names. */
export function avoidedSlots(nodeId: string, avoid: readonly ShardPlace[]): number[] {
  return avoid.filter((place) => place.nodeId === nodeId).map((place) => place.slot);
}

/** True when the node has a worker that `avoid` does not name (a shard there adds a core to the room). */
export function hasFreshWorker(candidate: PlacementCandidate, avoid: readonly ShardPlace[]): boolean {
  return avoidedSlots(candidate.record.id, avoid).length < candidate.record.load.workers;
}

/**
 * The node for a new shard, or undefined when none has room: among nodes with room, those with a worker outside
 * `avoid` come first, then the lowest load score, then the fewest peers, then the id (so the choice is stable).
 */
export function chooseNode(candidates: readonly PlacementCandidate[], avoid: readonly ShardPlace[]): PlacementCandidate | undefined {
  const open = candidates.filter(hasRoom);
  const fresh = open.filter((c) => hasFreshWorker(c, avoid));
  const pool = fresh.length > 0 ? fresh : open;
  return [...pool].sort((a, b) => loadScore(a) - loadScore(b) || a.peers - b.peers || a.record.id.localeCompare(b.record.id))[0];
}
