import { MIN_MEASURED_PEERS, WebinarBalancer, type CpuReading } from './webinar-placement';

interface Router {
  name: string;
  peers: number;
}

/** Places `viewers` one by one as the room does (the picked router's count grows) and returns the counts by name. */
function place(balancer: WebinarBalancer<Router>, routers: Router[], viewers: number): Record<string, number> {
  for (let i = 0; i < viewers; i++) {
    const picked = balancer.pick(routers.map((router) => ({ shard: router, peers: router.peers })))!;
    picked.peers++;
  }
  return Object.fromEntries(routers.map((router) => [router.name, router.peers]));
}

/** A balancer whose workers read as `readings` says by router name (a reading that changes is a new sample). */
function balancerOver(readings: Record<string, CpuReading | undefined>): WebinarBalancer<Router> {
  return new WebinarBalancer<Router>((router) => readings[router.name]);
}

describe('a webinar’s next viewer', () => {
  it('splits by count, the first of equals first, while any router has no reading', () => {
    const a = { name: 'a', peers: 30 };
    const b = { name: 'b', peers: 30 };
    expect(place(balancerOver({ a: { share: 0.9, at: 1 } }), [a, b], 11)).toEqual({ a: 36, b: 35 });
    expect(balancerOver({}).pick([])).toBeUndefined();
  });

  it('splits by count while a router has fewer peers than a reading can tell a viewer’s cost by', () => {
    const a = { name: 'a', peers: 40 };
    const fresh = { name: 'b', peers: MIN_MEASURED_PEERS - 1 };
    const balancer = balancerOver({ a: { share: 0.2, at: 1 }, b: { share: 0.9, at: 1 } });
    expect(balancer.pick([a, fresh].map((router) => ({ shard: router, peers: router.peers })))).toBe(fresh);
  });

  it('splits by count while every worker is nearly idle (a reading of a few ticks is noise)', () => {
    const a = { name: 'a', peers: 20 };
    const b = { name: 'b', peers: 20 };
    expect(place(balancerOver({ a: { share: 0.19, at: 1 }, b: { share: 0.01, at: 1 } }), [a, b], 10)).toEqual({ a: 25, b: 25 });
  });

  it('costs a nearly idle worker’s viewers as on the cheapest busy one: a reading of 0 does not draw every viewer', () => {
    const busy = { name: 'busy', peers: 30 };
    const idle = { name: 'idle', peers: 30 };
    expect(place(balancerOver({ busy: { share: 0.3, at: 1 }, idle: { share: 0, at: 1 } }), [busy, idle], 20)).toEqual({
      busy: 40,
      idle: 40,
    });
  });

  it('gives more viewers to the worker with CPU left, until both are predicted equally busy', () => {
    // Same viewers, but one core is slower (or also carries another room): 0.02 vs 0.015 of a core per viewer.
    const slow = { name: 'slow', peers: 40 };
    const fast = { name: 'fast', peers: 40 };
    const counts = place(balancerOver({ slow: { share: 0.8, at: 1 }, fast: { share: 0.6, at: 1 } }), [slow, fast], 100);
    expect(counts.slow! + counts.fast!).toBe(180);
    // Equal CPU: 0.02 x slow = 0.015 x fast, i.e. fast carries 4/3 of slow (77 and 103 of 180), within one viewer.
    expect(Math.abs(counts.fast! - (180 * 4) / 7)).toBeLessThanOrEqual(1);
  });

  it('weighs a new reading against the peers the router has when it arrives, and keeps a viewer’s cost until then', () => {
    const readings: Record<string, CpuReading> = { a: { share: 0.5, at: 1 }, b: { share: 0.5, at: 1 } };
    const a = { name: 'a', peers: 50 };
    const b = { name: 'b', peers: 50 };
    const balancer = balancerOver(readings);
    expect(place(balancer, [a, b], 20)).toEqual({ a: 60, b: 60 });
    // Measured again at 60 peers each: b’s viewers now cost twice a’s (another room got busy on b’s worker): a takes all 30.
    readings.a = { share: 0.6, at: 2 };
    readings.b = { share: 1.2, at: 2 };
    expect(place(balancer, [a, b], 30)).toEqual({ a: 90, b: 60 });
  });
});
