import { spawn, type ChildProcess } from 'node:child_process';
import { waitUntil } from '../testing/wait';
import { CpuSampler, processCpuSeconds, WORKER_CPU_INTERVAL_MS, WORKER_CPU_STALE_MS, WorkerCpu } from './worker-cpu';

const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((child) => child.kill('SIGKILL')));

/** A process that spins on one core, or one that sleeps. */
function child(kind: 'busy' | 'idle'): number {
  const started = kind === 'busy' ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }) : spawn('sleep', ['60']);
  children.push(started);
  return started.pid!;
}

describe('the CPU of worker processes', () => {
  it('reads a spinning process as busy and a sleeping one as idle, and a slot without a process as unknown', async () => {
    const busy = child('busy');
    const idle = child('idle');
    const cpu = new WorkerCpu(() => [busy, idle, null]);
    expect(cpu.of(0)).toBeUndefined(); // one sample is not an interval
    await waitUntil(() => cpu.of(0) !== undefined, 'a second sample');
    const [spinning, sleeping] = [cpu.of(0)!, cpu.of(1)!];
    // Two cores shared with the rest of the machine: the spinning child has a good part of one, the sleeper none.
    expect(spinning.share).toBeGreaterThan(0.1);
    expect(sleeping.share).toBeLessThan(0.05);
    expect(spinning.at).toBe(sleeping.at);
    expect(cpu.of(2)).toBeUndefined();
    expect(processCpuSeconds(busy)).toBeGreaterThan(0);
  });

  it('samples again only once an interval has passed, and follows a slot to its new process', () => {
    let now = 0;
    const used = new Map([
      [11, 0],
      [12, 0],
    ]);
    let pid = 11;
    const cpu = new WorkerCpu(
      () => [pid],
      () => now,
      (p) => used.get(p),
    );
    expect(cpu.of(0)).toBeUndefined();
    now = WORKER_CPU_INTERVAL_MS;
    used.set(11, 0.5);
    expect(cpu.of(0)).toEqual({ share: 0.5, at: WORKER_CPU_INTERVAL_MS });
    expect(cpu.mean()).toBe(0.5);
    now += WORKER_CPU_INTERVAL_MS - 1;
    used.set(11, 5);
    expect(cpu.of(0)).toEqual({ share: 0.5, at: WORKER_CPU_INTERVAL_MS });
    now += 1;
    expect(cpu.of(0)).toEqual({ share: 1, at: 2 * WORKER_CPU_INTERVAL_MS }); // capped at one core
    // The worker died and its replacement runs: a new process has no interval yet.
    pid = 12;
    now += WORKER_CPU_INTERVAL_MS;
    expect(cpu.of(0)).toBeUndefined();
    now += WORKER_CPU_INTERVAL_MS;
    used.set(12, 0.25);
    expect(cpu.of(0)).toEqual({ share: 0.25, at: now });
    // Nothing read it for a long while: that long average is no reading; the next interval is.
    now += WORKER_CPU_STALE_MS + 1;
    expect(cpu.of(0)).toBeUndefined();
    now += WORKER_CPU_INTERVAL_MS;
    used.set(12, 1.25);
    expect(cpu.of(0)).toEqual({ share: 1, at: now });
  });

  it('gives a node’s mean over its processes, counting one seen for the first time as idle', () => {
    let now = 0;
    const sampler = new CpuSampler(
      () => now,
      (pid) => ({ 1: now / 1000, 2: now / 4000, 3: 0 })[pid],
    );
    expect(sampler.sample([1, 2])).toBe(0);
    now = 2000;
    expect(sampler.shares([1, 2, null])).toEqual([1, 0.25, undefined]);
    now = 4000;
    expect(sampler.sample([1, 2, 3])).toBeCloseTo((1 + 0.25 + 0) / 3);
  });
});
