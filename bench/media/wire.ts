/**
 * A stand-in for the network card that a media server's viewers sit behind, for benchmarks on one machine: the
 * benchmark re-runs itself in a network namespace of its own (`unshare --net`), where an `ifb` device takes every
 * packet sent to WIRE.remoteIp and frees it, counting it. The workers do all the work of sending (the syscall, UDP
 * and IP, the queue), but no receiver on the same cores has to read hundreds of thousands of packets a second:
 * on 2 cores such receivers took the CPU from the workers they were meant to measure. Like a server's network card,
 * the device has a transmit queue per CPU, each CPU sending on its own (XPS): with one queue for all, two CPUs
 * sending at once slowed each other down by about 20 % in the kernel alone (10 % with a queue each).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const DEVICE = 'svcwire';
const INSIDE = 'BENCH_IN_OWN_NETNS';

/** The addresses on the wire: sockets bind WIRE.localIp and send to WIRE.remoteIp (any port). */
export const WIRE = { localIp: '10.77.0.1', remoteIp: '10.77.0.2' } as const;

/**
 * Outside the namespace: runs this same benchmark inside a new one and exits with its code (returns false).
 * Inside: sets up loopback and the wire (returns true). Needs root, or unprivileged user namespaces.
 */
export function inOwnNetworkNamespace(): boolean {
  if (process.env[INSIDE] === '1') {
    const cpus = allowedCpus();
    // The namespace's own /sys (in its own mount namespace), where its device's queues are.
    run('mount', ['-t', 'sysfs', 'sysfs', '/sys']);
    run('ip', ['link', 'set', 'lo', 'up']);
    run('ip', ['link', 'add', DEVICE, 'numtxqueues', String(cpus.length), 'type', 'ifb']);
    // The device frees what it is given at once; long queues keep a burst from being dropped before it.
    run('ip', ['link', 'set', DEVICE, 'txqueuelen', '10000']);
    run('ip', ['addr', 'add', `${WIRE.localIp}/24`, 'dev', DEVICE]);
    run('ip', ['link', 'set', DEVICE, 'up']);
    for (const [queue, cpu] of cpus.entries()) writeFileSync(`/sys/class/net/${DEVICE}/queues/tx-${queue}/xps_cpus`, cpuMask(cpu));
    return true;
  }
  const unshare = ['--net', '--mount', ...(process.getuid?.() === 0 ? [] : ['--map-root-user'])];
  const child = spawn('unshare', [...unshare, '--', process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [INSIDE]: '1' },
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    process.stderr.write(`benchmark failed: could not run unshare (util-linux): ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return false;
}

/** Packets the wire has taken so far (the device counts them as it frees them). */
export function wirePackets(): number {
  const line = readFileSync('/proc/net/dev', 'utf8')
    .split('\n')
    .find((l) => l.trimStart().startsWith(`${DEVICE}:`));
  if (!line) throw new Error(`no ${DEVICE} device: call inOwnNetworkNamespace() first`);
  // "svcwire: rx-bytes rx-packets ...": an ifb device counts what it is sent as received.
  return Number(line.split(':')[1]!.trim().split(/\s+/)[1]);
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
}

/** The ids of the CPUs this process may run on (its affinity or cpuset), from "0-3,6" in /proc/self/status. */
function allowedCpus(): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  if (!list) return Array.from({ length: os.availableParallelism() }, (_c, i) => i);
  return list.split(',').flatMap((range) => {
    const [first, last = first] = range.split('-').map(Number);
    return Array.from({ length: last! - first! + 1 }, (_c, i) => first! + i);
  });
}

/** The hex CPU mask of /sys's xps_cpus with only `cpu` set (comma-separated 32-bit words, highest first). */
function cpuMask(cpu: number): string {
  const word = Math.floor(cpu / 32);
  return Array.from({ length: word + 1 }, (_w, i) => (i === word ? 2 ** (cpu % 32) : 0))
    .reverse()
    .map((w) => w.toString(16).padStart(8, '0'))
    .join(',');
}
