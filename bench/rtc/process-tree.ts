/**
 * "Other CPU" for benchmarks whose processes are not all children the support code knows of (a browser
 * and its helpers, a service and its media worker): everything this process and all its descendants
 * use counts as ours, read from /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Linux reports /proc times in clock ticks of 10 ms. */
const TICKS_PER_SECOND = 100;

interface Stat {
  ppid: number;
  /** utime + stime + cutime + cstime: the process and its children that have exited and were waited for. */
  ticks: number;
}

function statOf(pid: number): Stat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // After the command: state is field 3, ppid 4, utime 14, stime 15, cutime 16, cstime 17 (1-based, so index - 3 here).
    return { ppid: fields[1]!, ticks: fields[11]! + fields[12]! + fields[13]! + fields[14]! };
  } catch {
    return undefined;
  }
}

/** CPU ticks of `root` and every live descendant (with the exited children each of them waited for). */
function treeTicks(root: number): number {
  const stats = new Map<number, Stat>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = statOf(pid);
    if (stat) stats.set(pid, stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let ticks = 0;
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    ticks += stats.get(pid)?.ticks ?? 0;
    pending.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

/** user + nice + system ticks of all CPUs together, from /proc/stat. */
function machineBusyTicks(): number {
  const [user, nice, system] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 4).map(Number);
  return user! + nice! + system!;
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
