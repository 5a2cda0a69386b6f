/**
 * What a media node measures about itself for placement: the mediasoup objects it holds (counted through
 * mediasoup's observer) and the CPU its worker processes used (from /proc/<pid>/stat, between two samples).
 */
import fs from 'node:fs';
import { observer, type types } from 'mediasoup';

/** Linux's USER_HZ: /proc reports CPU times in these ticks (100 on every mainstream architecture). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used, or undefined when it is gone or /proc is unavailable. */
export function processCpuSeconds(pid: number, procDir = '/proc'): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`${procDir}/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) / CLOCK_TICKS_PER_SECOND;
}

/** The busy share of a set of processes between calls of `sample`. */
export class CpuSampler {
  private last = new Map<number, { cpu: number; at: number }>();

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly read: (pid: number) => number | undefined = (pid) => processCpuSeconds(pid),
  ) {}

  /** The mean busy share (0..1) of `pids` since the previous call (0 for a process seen for the first time). */
  sample(pids: readonly number[]): number {
    const at = this.now();
    const next = new Map<number, { cpu: number; at: number }>();
    let sum = 0;
    for (const pid of pids) {
      const cpu = this.read(pid);
      if (cpu === undefined) continue;
      next.set(pid, { cpu, at });
      const before = this.last.get(pid);
      if (before && at > before.at) sum += Math.min(1, Math.max(0, (cpu - before.cpu) / ((at - before.at) / 1000)));
    }
    this.last = next;
    return pids.length > 0 ? sum / pids.length : 0;
  }
}

/** Routers, transports and consumers alive in this process's mediasoup workers. */
export class MediaCounters {
  routers = 0;
  transports = 0;
  consumers = 0;

  /** Counts from now on (create it before the workers start). */
  constructor() {
    observer.on('newworker', (worker: types.Worker) => {
      worker.observer.on('newrouter', (router: types.Router) => {
        this.routers++;
        router.observer.once('close', () => this.routers--);
        router.observer.on('newtransport', (transport: types.Transport) => {
          this.transports++;
          transport.observer.once('close', () => this.transports--);
          transport.observer.on('newconsumer', (consumer: types.Consumer) => {
            this.consumers++;
            consumer.observer.once('close', () => this.consumers--);
          });
        });
      });
    });
  }
}
