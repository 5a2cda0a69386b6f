/**
 * The CPU mediasoup worker processes use, read from /proc/<pid>/stat between two samples: for placement (a node's
 * load, the least-busy worker for a webinar's next viewer) and for /healthz.
 */
import fs from 'node:fs';
import type { CpuReading } from './webinar-placement';

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

/** The busy share of processes between calls of `shares` or `sample`. */
export class CpuSampler {
  private last = new Map<number, { cpu: number; at: number }>();

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly read: (pid: number) => number | undefined = (pid) => processCpuSeconds(pid),
  ) {}

  /** Each process's busy share (0..1) since the previous call; undefined for one gone or seen for the first time. */
  shares(pids: readonly (number | null)[]): (number | undefined)[] {
    const at = this.now();
    const next = new Map<number, { cpu: number; at: number }>();
    const shares = pids.map((pid) => {
      const cpu = pid === null ? undefined : this.read(pid);
      if (pid === null || cpu === undefined) return undefined;
      next.set(pid, { cpu, at });
      const before = this.last.get(pid);
      return before && at > before.at ? Math.min(1, Math.max(0, (cpu - before.cpu) / ((at - before.at) / 1000))) : undefined;
    });
    this.last = next;
    return shares;
  }

  /** The mean busy share (0..1) of `pids` since the previous call (0 for a process gone or seen for the first time). */
  sample(pids: readonly number[]): number {
    return pids.length > 0 ? this.shares(pids).reduce<number>((sum, share) => sum + (share ?? 0), 0) / pids.length : 0;
  }
}

/** Sampling more often than this measures /proc's 10 ms ticks more than the work. */
export const WORKER_CPU_INTERVAL_MS = 1000;

/** A sample after a longer gap than this only starts the next interval: its average would say little about now. */
export const WORKER_CPU_STALE_MS = 10_000;

/** Each worker's reading by slot, sampled when read at least WORKER_CPU_INTERVAL_MS after the previous sample. */
export class WorkerCpu {
  private readonly sampler: CpuSampler;
  private readings: (CpuReading | undefined)[] = [];
  private sampledAt = -Infinity;

  /** `pids`: the worker process of each slot now (null while a slot has none). */
  constructor(
    private readonly pids: () => readonly (number | null)[],
    private readonly now: () => number = () => performance.now(),
    read?: (pid: number) => number | undefined,
  ) {
    this.sampler = new CpuSampler(now, read);
  }

  /** The slot's worker's busy share over the last interval; undefined until it has run for one. */
  of(slot: number): CpuReading | undefined {
    const at = this.now();
    if (at - this.sampledAt >= WORKER_CPU_INTERVAL_MS) {
      const stale = at - this.sampledAt > WORKER_CPU_STALE_MS;
      this.sampledAt = at;
      this.readings = this.sampler.shares(this.pids()).map((share) => (share === undefined || stale ? undefined : { share, at }));
    }
    return this.readings[slot];
  }

  /** The mean share over the slots with a worker (0 for one not measured yet), as a node's `cpu` load. */
  mean(): number {
    const running = this.pids().flatMap((pid, slot) => (pid === null ? [] : [this.of(slot)?.share ?? 0]));
    return running.length > 0 ? running.reduce((sum, share) => sum + share, 0) / running.length : 0;
  }
}
