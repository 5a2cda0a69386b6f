import { chooseNode, hasRoom, loadScore, type PlacementCandidate } from './node-placement';
import type { NodeLoad } from './node-registry';

function node(
  id: string,
  load: Partial<NodeLoad> = {},
  extra: { maxPeers?: number | null; draining?: boolean; peers?: number; recent?: number } = {},
): PlacementCandidate {
  return {
    record: {
      id,
      controlUrl: `ws://10.0.0.1:${id.length}`,
      announcedAddress: '10.0.0.1',
      maxPeers: extra.maxPeers ?? null,
      draining: extra.draining ?? false,
      startedAt: '2026-11-27T00:00:00.000Z',
      load: { workers: 2, routers: 0, transports: 0, consumers: 0, peers: 0, cpu: 0, ...load },
    },
    peers: extra.peers ?? 0,
    recent: extra.recent ?? 0,
  };
}

const pick = (candidates: PlacementCandidate[], avoid = [] as { nodeId: string; slot: number }[]) =>
  chooseNode(candidates, avoid)?.record.id;

describe('placing a new shard on a media node', () => {
  it('takes the node whose workers are least busy, whatever the order or how many rooms each has', () => {
    expect(pick([node('a', { cpu: 0.6 }), node('b', { cpu: 0.2 }), node('c', { cpu: 0.4 })])).toBe('b');
    expect(pick([node('c', { cpu: 0.4 }), node('b', { cpu: 0.2, routers: 40 }), node('a', { cpu: 0.6, routers: 1 })])).toBe('b');
  });

  it('weighs consumers against CPU, per worker', () => {
    // Same CPU: fewer consumers per worker wins; a node with twice the workers carries twice the consumers as lightly.
    expect(pick([node('a', { consumers: 400 }), node('b', { consumers: 100 })])).toBe('b');
    expect(pick([node('a', { consumers: 300, workers: 4 }), node('b', { consumers: 200, workers: 2 })])).toBe('a');
    expect(loadScore(node('x', { cpu: 0.1, consumers: 800, workers: 1 }))).toBeCloseTo(1.1);
  });

  it('is not round robin: the same idle node keeps winning while it stays the least loaded', () => {
    const busy = node('a', { cpu: 0.5, consumers: 900 });
    const idle = node('b', { cpu: 0.05 });
    expect([1, 2, 3].map(() => pick([busy, idle]))).toEqual(['b', 'b', 'b']);
  });

  it('spreads a burst: shards placed since the last heartbeat count against a node', () => {
    expect(pick([node('a', {}, { recent: 3 }), node('b', { cpu: 0.03 })])).toBe('b');
  });

  it('skips draining nodes and nodes at SVC_NODE_MAX_PEERS, counting the peers the control plane knows of', () => {
    expect(pick([node('a', { cpu: 0.01 }, { draining: true }), node('b', { cpu: 0.9 })])).toBe('b');
    expect(pick([node('a', { peers: 1 }, { maxPeers: 1 }), node('b', { cpu: 0.9 })])).toBe('b');
    expect(pick([node('a', { peers: 0 }, { maxPeers: 1, peers: 1 }), node('b', { cpu: 0.9 })])).toBe('b');
    expect(hasRoom(node('a', { peers: 2 }, { maxPeers: 3 }))).toBe(true);
    expect(pick([node('a', {}, { draining: true }), node('b', { peers: 5 }, { maxPeers: 5 })])).toBeUndefined();
  });

  it('prefers a node with a worker the room does not use yet, and falls back to a used one', () => {
    const a = node('a', { workers: 1 });
    const b = node('b', { workers: 1, cpu: 0.5 });
    expect(pick([a, b], [{ nodeId: 'a', slot: 0 }])).toBe('b');
    expect(pick([node('a', { workers: 2 }), b], [{ nodeId: 'a', slot: 0 }])).toBe('a');
    expect(pick([a], [{ nodeId: 'a', slot: 0 }])).toBe('a');
  });
});
