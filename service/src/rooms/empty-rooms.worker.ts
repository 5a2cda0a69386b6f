import type { Logger } from '../shared/logger';
import type { RoomsService } from './rooms.service';

/**
 * Ends live meetings once nobody has been in them for the grace period (SVC_ROOM_EMPTY_GRACE_SECONDS), or
 * puts one that emptied before its scheduled start back to scheduled (an early visit ends nothing).
 * The state is in SQLite (participants' left_at), so a restart in the middle of a grace period loses
 * nothing: the meeting ends on time after the restart.
 */
export class EmptyRoomsWorker {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rooms: RoomsService,
    private readonly graceSeconds: number,
    private readonly logger: Logger,
  ) {}

  /** Ends (or returns to scheduled) the meetings whose grace period is over; returns how many. */
  runOnce(): number {
    return this.rooms.endEmptyMeetings();
  }

  /** Checks a few times per grace period (at most every 10 s, at least every 250 ms). */
  start(): void {
    const everyMs = Math.min(10_000, Math.max(250, (this.graceSeconds * 1000) / 4));
    this.timer = setInterval(() => {
      try {
        const ended = this.runOnce();
        if (ended > 0)
          this.logger.info('closed empty meetings (ended, or back to scheduled when emptied before their start)', { meetings: ended });
      } catch (error) {
        this.logger.error('could not end empty meetings', { error: (error as Error).message });
      }
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
