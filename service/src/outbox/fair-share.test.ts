import { shareSlots, type DueDestination } from './fair-share';

const idle = { destinations: new Map<string, number>(), organizations: new Map<string, number>() };
const due = (destination_id: string, organization_id: string, n: number): DueDestination => ({ destination_id, organization_id, due: n });

describe('shareSlots', () => {
  it('gives organizations turns, so a backlogged one leaves room for another', () => {
    const backlog = Array.from({ length: 136 }, (_, i) => due(`whk_a${i}`, 'org_a', 50));
    const slots = shareSlots([...backlog, due('whk_b', 'org_b', 1)], 64, { perDestination: 8, perOrganization: 32 }, idle);
    expect(slots.get('whk_b')).toBe(1);
    expect([...slots.values()].reduce((a, b) => a + b, 0)).toBe(33);
  });

  it('never lets one organization hold more than its share, even with nothing else to do', () => {
    const inFlight = { destinations: new Map([['whk_a0', 8]]), organizations: new Map([['org_a', 30]]) };
    const slots = shareSlots(
      [due('whk_a0', 'org_a', 9), due('whk_a1', 'org_a', 9)],
      34,
      { perDestination: 8, perOrganization: 32 },
      inFlight,
    );
    expect(slots).toEqual(new Map([['whk_a1', 2]]));
  });

  it('hands out slots one per destination per round, up to each destination limit and its due count', () => {
    const slots = shareSlots(
      [due('whk_1', 'org', 1), due('whk_2', 'org', 10), due('whk_3', 'org', 10)],
      9,
      { perDestination: 4, perOrganization: 64 },
      idle,
    );
    expect(slots).toEqual(
      new Map([
        ['whk_1', 1],
        ['whk_2', 4],
        ['whk_3', 4],
      ]),
    );
  });
});
