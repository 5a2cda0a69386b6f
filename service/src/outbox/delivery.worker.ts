import type { WebhookSettings } from '../config';
import type { Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Logger } from '../shared/logger';
import type { Transaction } from '../shared/transaction';
import { ClaimLoop } from '../jobs/claim-loop';
import type { ClaimedDelivery, DeliveriesRepo, DestinationKind } from './deliveries.repo';
import { AttemptRecorder, isSuccess } from './attempt-recorder';
import { shareSlots } from './fair-share';
import { failedBeforeSending, type DeliveryTarget, type DestinationHealth, type SendResult } from './destination';

const LEASE_MARGIN_MS = 30_000;
const LEASE_CHECK_EVERY_MS = 1_000;
/** A reserved delivery is attempted only while its lease has at least this long left beyond the attempt's timeout. */
const RESERVE_LEASE_SPARE_MS = 5_000;
/** Finished attempts whose slot goes on with a reserved delivery are recorded together within this long. */
const RECORD_DELAY_MS = 5;

/** What the worker needs; `random` gives the jitter (0..1). */
export interface DeliveryWorkerDeps {
  deliveries: DeliveriesRepo;
  targets: Record<DestinationKind, DeliveryTarget>;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  settings: WebhookSettings;
  logger: Logger;
  random?: () => number;
}

/** A finished attempt waiting to be recorded. */
interface Outcome {
  delivery: ClaimedDelivery;
  startedAt: number;
  result: SendResult;
  /** No reserved delivery followed it, so its slot of the pool is free once it is recorded. */
  endsRun: boolean;
  recorded: () => void;
}

/** What one claim took: deliveries to attempt now, and deliveries reserved to follow them. */
interface Claim {
  start: ClaimedDelivery[];
  reserve: ClaimedDelivery[];
}

/**
 * Works through the outbox: claims due deliveries, makes one attempt each at its destination
 * (webhook, Slack or Teams), records the attempt and schedules the next one. Attempts run
 * concurrently up to a bounded pool that organizations and their destinations share in turns, each
 * under a cap, so one slow or backlogged receiver never holds up the others. While running, the
 * worker also leases a reserve of up to one destination's share of its next due deliveries: an
 * attempt that ends is followed in the same event-loop turn by the next reserved one, with no
 * transaction in between, so attempts are recorded (and reserves topped up) in batches of several.
 */
export class DeliveryWorker {
  private readonly loop: ClaimLoop<ClaimedDelivery>;
  private readonly busyDestinations = new Map<string, number>();
  private readonly busyOrganizations = new Map<string, number>();
  private unrecorded: Outcome[] = [];
  /** Leased deliveries per destination, to be attempted one after another as its attempts end. */
  private readonly reserves = new Map<string, ClaimedDelivery[]>();
  /** Reserved deliveries given up (their destination failed for good, was disabled, or the worker stopped), to unclaim. */
  private released: ClaimedDelivery[] = [];
  /** Runs whose next reserved attempt starts at the next turn, together with the other runs'. */
  private waiting: (() => void)[] = [];
  private turnScheduled = false;
  private recordingDue = false;
  private recordTimer: NodeJS.Timeout | undefined;
  private recordImmediate: NodeJS.Immediate | undefined;
  private leasesCheckedAt = -Infinity;
  private readonly recorder: AttemptRecorder;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.recorder = new AttemptRecorder({ ...deps, random: deps.random ?? Math.random });
    this.loop = new ClaimLoop(
      'delivery worker',
      {
        claim: (capacity, now) => this.take(this.deps.transaction(() => this.claim(capacity, now))),
        run: (d) => this.run(d),
        nextDueAt: () => deps.deliveries.nextDueAt(),
        refillsItself: true,
      },
      deps.settings.concurrency,
      deps.clock,
      deps.logger,
    );
  }

  /** Makes every delivery interrupted by a stop or crash due again, then keeps delivering until `stop`. */
  start(): void {
    const released = this.deps.deliveries.releaseAll(this.deps.clock.now());
    if (released > 0) this.deps.logger.info('deliveries resumed after a restart', { count: released });
    this.loop.start();
  }

  /**
   * Stops claiming and waits for the attempts in flight to be recorded; their runs give their reserves back as they
   * end. Any delivery left leased (an attempt not recorded) is attempted again after a restart.
   */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Tells a running worker that new deliveries may be due now. */
  wake(): void {
    this.loop.wake();
  }

  /** Claims every delivery due now (up to the pool's capacity), attempts them, and resolves once all are recorded; returns how many. */
  runOnce(): Promise<number> {
    return this.loop.runOnce();
  }

  /**
   * Claims up to `capacity` due deliveries to attempt now, shared fairly, and, while running and nobody waits for a
   * slot, tops up the reserve of every destination that is busy or gets a slot; runs inside the caller's transaction
   * (`take` the claim once it committed).
   */
  private claim(capacity: number, now: number): Claim {
    const { settings } = this.deps;
    const leaseUntil = now + settings.timeoutMs + LEASE_MARGIN_MS;
    if (now - this.leasesCheckedAt >= LEASE_CHECK_EVERY_MS) {
      this.deps.deliveries.expireLeases(now);
      this.leasesCheckedAt = now;
    }
    const depth = settings.perEndpointConcurrency;
    const due = this.deps.deliveries.dueDestinations(now, this.loop.running ? 2 * depth : depth);
    const slots = shareSlots(
      due,
      capacity,
      { perDestination: settings.perEndpointConcurrency, perOrganization: settings.perOrganizationConcurrency },
      { destinations: this.busyDestinations, organizations: this.busyOrganizations },
    );
    // While a destination with due work gets no slot and has none, no reserve is topped up: the others' reserves run
    // out, their slots come free and are shared in turns again, so a reserve holds a slot for at most one reserve more.
    const starved = due.some(({ destination_id: id }) => !slots.has(id) && !this.busyDestinations.has(id));
    const reserveDepth = this.loop.running && !starved ? depth : 0;
    const claim: Claim = { start: [], reserve: [] };
    for (const { destination_id: id } of due) {
      const granted = slots.get(id) ?? 0;
      const reserved = this.reserves.get(id)?.length ?? 0;
      // A reserve is topped up once it is down to half, so that it is claimed for in batches too.
      const topUp = (granted > 0 || this.busyDestinations.has(id)) && reserved <= reserveDepth / 2;
      const toReserve = topUp ? reserveDepth - reserved : 0;
      if (granted + toReserve <= 0) continue;
      const claimed = this.deps.deliveries.claimDue(id, now, granted + toReserve, leaseUntil);
      claim.start.push(...claimed.slice(0, granted));
      claim.reserve.push(...claimed.slice(granted));
    }
    const claimed = [...claim.start, ...claim.reserve];
    for (const target of new Set(Object.values(this.deps.targets))) target.prepare?.(claimed);
    return claim;
  }

  /** Takes a committed claim: counts its deliveries to attempt against their destination's and organization's caps, and keeps its reserve. */
  private take(claim: Claim): ClaimedDelivery[] {
    for (const d of claim.start) this.track(d, +1);
    for (const d of claim.reserve) {
      const reserve = this.reserves.get(d.destination_id);
      if (reserve) reserve.push(d);
      else this.reserves.set(d.destination_id, [d]);
    }
    return claim.start;
  }

  private track(delivery: ClaimedDelivery, by: 1 | -1): void {
    adjust(this.busyDestinations, delivery.destination_id, by);
    adjust(this.busyOrganizations, delivery.organization_id, by);
  }

  /** Attempts `first`, then its destination's reserved deliveries one after the other; resolves once every attempt is recorded. */
  private async run(first: ClaimedDelivery): Promise<void> {
    const recordings: Promise<void>[] = [];
    let next: ClaimedDelivery | undefined = first;
    while (next) {
      const delivery: ClaimedDelivery = next;
      const startedAt = this.deps.clock.now();
      const result = await this.attempt(delivery, startedAt);
      this.track(delivery, -1);
      next = this.nextReserved(delivery, result);
      const endsRun = next === undefined;
      recordings.push(new Promise<void>((recorded) => this.queueRecord({ delivery, startedAt, result, endsRun, recorded })));
      if (next) await new Promise<void>((go) => this.waitForTurn(go));
    }
    await Promise.all(recordings);
  }

  private async attempt(delivery: ClaimedDelivery, startedAt: number): Promise<SendResult> {
    try {
      return await this.deps.targets[delivery.destination_kind].attempt(delivery, startedAt);
    } catch (err) {
      return failedBeforeSending((err as Error).message);
    }
  }

  /**
   * The reserved delivery to attempt after `previous`, if the worker runs and `previous` did not fail for good;
   * otherwise the destination's reserve is given up. (Whether the destination is still enabled is checked when
   * attempts are recorded, see `dropDisabledReserves`.)
   */
  private nextReserved(previous: ClaimedDelivery, result: SendResult): ClaimedDelivery | undefined {
    const id = previous.destination_id;
    const reserve = this.reserves.get(id);
    if (!reserve) return undefined;
    const usable = this.loop.running && result.permanentFailure === null;
    const leaseNeeded = this.deps.clock.now() + this.deps.settings.timeoutMs + RESERVE_LEASE_SPARE_MS;
    let next: ClaimedDelivery | undefined;
    while (usable && next === undefined && reserve.length > 0) {
      const candidate = reserve.shift()!;
      // One whose lease could run out during its attempt is not attempted: the lease would let it be claimed twice.
      if ((candidate.lease_until ?? 0) >= leaseNeeded) next = candidate;
      else this.released.push(candidate);
    }
    if (!usable) this.released.push(...reserve.splice(0));
    if (reserve.length === 0) this.reserves.delete(id);
    if (next) this.track(next, +1);
    return next;
  }

  /** Queues a finished attempt for recording: at the next turn when its slot is free then, otherwise within RECORD_DELAY_MS. */
  private queueRecord(outcome: Outcome): void {
    this.unrecorded.push(outcome);
    if (outcome.endsRun || this.unrecorded.length >= this.deps.settings.concurrency) this.recordingDue = true;
    this.scheduleTurn();
  }

  private waitForTurn(go: () => void): void {
    this.waiting.push(go);
    this.scheduleTurn();
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => this.turn());
  }

  /**
   * Once per event-loop turn in which attempts ended: starts the reserved attempts that follow them all together, then
   * schedules their recording. Writing requests in bursts, rather than each as its answer arrives, lets a receiver
   * take several per wake-up (a wake-up across cores costs more than the write); the recording transaction runs in a
   * later turn, after those requests went out, so the receivers work while the database does.
   */
  private turn(): void {
    this.turnScheduled = false;
    for (const go of this.waiting.splice(0)) go();
    if (this.unrecorded.length === 0) return;
    if (this.recordingDue) {
      this.recordingDue = false;
      this.recordImmediate ??= setImmediate(() => this.recordAll());
    } else {
      this.recordTimer ??= setTimeout(() => this.recordAll(), RECORD_DELAY_MS);
    }
  }

  /**
   * Records every finished attempt in one transaction, hands given-up reserved deliveries back and, while running,
   * claims for the slots that freed and tops up reserves in the same transaction (one commit for many attempts).
   * If it fails, the recorded attempts' leases run out and they are attempted again.
   */
  private recordAll(): void {
    clearTimeout(this.recordTimer);
    clearImmediate(this.recordImmediate);
    this.recordTimer = undefined;
    this.recordImmediate = undefined;
    const batch = this.unrecorded;
    const released = this.released;
    this.unrecorded = [];
    this.released = [];
    const endedRuns = batch.filter((outcome) => outcome.endsRun).length;
    let claim: Claim = { start: [], reserve: [] };
    try {
      claim = this.deps.transaction(() => {
        const healthOf = new Map<string, DestinationHealth | undefined>();
        for (const outcome of batch) this.recorder.record(outcome.delivery, outcome.startedAt, outcome.result, healthOf);
        this.unclaim([...released, ...this.dropDisabledReserves(healthOf)]);
        const free = this.deps.settings.concurrency - (this.loop.busy - endedRuns);
        return this.loop.running ? this.claim(Math.max(0, free), this.deps.clock.now()) : claim;
      });
    } catch (err) {
      this.released.push(...released);
      this.deps.logger.error('recording delivery attempts failed; they will be attempted again', {
        error: (err as Error).message,
        deliveries: batch.length,
      });
    }
    const started = this.take(claim);
    this.loop.adopt(started);
    // Deliveries due but not claimable now (a busy destination) wait for the loop's next poll or wake.
    if (endedRuns > 0 && started.length === 0) this.loop.wake();
    for (const outcome of batch) {
      outcome.recorded();
      const { delivery, result } = outcome;
      if (!isSuccess(result)) {
        this.deps.logger.warn('delivery attempt failed', {
          delivery_id: delivery.id,
          destination_id: delivery.destination_id,
          attempt: delivery.attempt_count + 1,
          status_code: result.statusCode,
          error: result.error,
        });
      }
    }
  }

  /**
   * Gives up the reserves of the batch's destinations that are disabled or deleted now (through the API, or by this
   * batch): a reserve is drawn on only as attempts end, and those are recorded within RECORD_DELAY_MS, so after a
   * destination is switched off at most one more delivery per attempt under way goes out. `healthOf` is the batch's.
   */
  private dropDisabledReserves(healthOf: Map<string, DestinationHealth | undefined>): ClaimedDelivery[] {
    const dropped: ClaimedDelivery[] = [];
    for (const [id, health] of healthOf) {
      const reserve = this.reserves.get(id);
      if (!reserve || health?.enabled) continue;
      dropped.push(...reserve);
      this.reserves.delete(id);
    }
    return dropped;
  }

  /** Hands reserved deliveries back to the schedule; those of a destination that is disabled now are parked with its others. */
  private unclaim(deliveries: ClaimedDelivery[]): void {
    this.deps.deliveries.unclaim(deliveries.map((d) => d.id));
    for (const d of new Map(deliveries.map((d) => [d.destination_id, d])).values()) {
      if (this.deps.targets[d.destination_kind].health(d.destination_id)?.enabled === false) this.deps.deliveries.park(d.destination_id);
    }
  }
}

function adjust(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
