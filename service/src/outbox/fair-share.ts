/** A destination with deliveries due now. */
export interface DueDestination {
  destination_id: string;
  organization_id: string;
  /** How many of its deliveries are due. */
  due: number;
}

/** How many attempts may be in flight at once: per destination and per organization. */
export interface ShareLimits {
  perDestination: number;
  perOrganization: number;
}

/** Attempts already in flight, by destination and by organization. */
export interface InFlight {
  destinations: ReadonlyMap<string, number>;
  organizations: ReadonlyMap<string, number>;
}

/**
 * Shares `capacity` free slots of the pool between destinations with due work: organizations take turns,
 * and within one organization its destinations take turns (one slot each per round), so a backlog or a slow
 * receiver of one cannot keep another waiting; no destination or organization goes over its limit.
 * `due` comes oldest first; the result maps destination ids to the number of deliveries to claim.
 */
export function shareSlots(due: DueDestination[], capacity: number, limits: ShareLimits, inFlight: InFlight): Map<string, number> {
  const granted = new Map<string, number>();
  const grantedToOrganization = new Map<string, number>();
  const order = interleaveByOrganization(due);
  let free = capacity;
  let progress = true;
  while (free > 0 && progress) {
    progress = false;
    for (const d of order) {
      if (free === 0) break;
      const mine = granted.get(d.destination_id) ?? 0;
      const org = grantedToOrganization.get(d.organization_id) ?? 0;
      if (mine >= d.due) continue;
      if ((inFlight.destinations.get(d.destination_id) ?? 0) + mine >= limits.perDestination) continue;
      if ((inFlight.organizations.get(d.organization_id) ?? 0) + org >= limits.perOrganization) continue;
      granted.set(d.destination_id, mine + 1);
      grantedToOrganization.set(d.organization_id, org + 1);
      free -= 1;
      progress = true;
    }
  }
  return granted;
}

/** The destinations in turns: the first of each organization, then the second of each, and so on. */
function interleaveByOrganization(due: DueDestination[]): DueDestination[] {
  const byOrganization = new Map<string, DueDestination[]>();
  for (const d of due) {
    const list = byOrganization.get(d.organization_id);
    if (list) list.push(d);
    else byOrganization.set(d.organization_id, [d]);
  }
  const groups = [...byOrganization.values()];
  const longest = Math.max(0, ...groups.map((g) => g.length));
  const order: DueDestination[] = [];
  for (let i = 0; i < longest; i++) for (const group of groups) if (group[i]) order.push(group[i]!);
  return order;
}
