/**
 * "Other CPU" for benchmarks whose processes are not all children the support code knows of (a browser
 * and its helpers, a service and its media worker): everything this process and all its descendants
 * use counts as ours, read from /proc.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { machineBusyTicks, procStat, type ProcStat } from '../support';

/** Linux reports /proc times in clock ticks of 10 ms. */
const TICKS_PER_SECOND = 100;

/** CPU ticks of `root` and every live descendant (with the exited children each of them waited for). */
function treeTicks(root: number): number {
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = procStat(pid);
    if (stat) stats.set(pid, stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let ticks = 0;
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    const stat = stats.get(pid);
    // With the exited children each process waited for.
    if (stat) ticks += stat.utime + stat.stime + stat.cutime + stat.cstime;
    pending.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

/**
 * Starts watching the CPU time of processes outside this process's tree; the returned function gives
 * their share of the whole machine (0..1) since then, or null where /proc cannot be read.
 */
export function watchOtherCpuOutsideTree(): () => number | null {
  try {
    const machineBefore = machineBusyTicks();
    const oursBefore = treeTicks(process.pid);
    const started = performance.now();
    return () => {
      const seconds = (performance.now() - started) / 1000;
      const others = machineBusyTicks() - machineBefore - (treeTicks(process.pid) - oursBefore);
      return Math.max(0, others / TICKS_PER_SECOND / (seconds * os.availableParallelism()));
    };
  } catch {
    return () => null;
  }
}
