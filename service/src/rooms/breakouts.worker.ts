import type { Logger } from '../shared/logger';
import type { RoomsService } from './rooms.service';

/** How often the worker looks for breakout rooms whose timer or closing countdown ran out. */
const TICK_MS = 1000;

/**
 * Moves breakout rooms on when their time comes: a host's timer that ran out starts the 30-second
 * countdown; a countdown that is over sends everyone back to the main room. The times are in SQLite and
 * compared with the injected clock, so tests call runOnce() after advancing it.
 */
export class BreakoutsWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly rooms: RoomsService,
    private readonly logger: Logger,
  ) {}

  /** Moves on the sets that are due; resolves with how many. */
  runOnce(): Promise<number> {
    return this.rooms.breakouts.runDue();
  }

  start(): void {
    this.timer = setInterval(() => {
      // One pass at a time: moving everyone back may wait for a main room's new router.
      this.running = this.running.then(() =>
        this.runOnce().catch((error: unknown) => this.logger.error('could not move breakout rooms on', { error: String(error) })),
      );
    }, TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
