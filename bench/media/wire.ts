/**
 * A stand-in for the network card that a media server's viewers sit behind, for benchmarks on one machine: the
 * benchmark re-runs itself in a network namespace of its own (`unshare --net`), where an `ifb` device takes every
 * packet sent to WIRE.remoteIp and frees it, counting it. The workers do all the work of sending (the syscall, UDP
 * and IP, the queue), but no receiver on the same cores has to read hundreds of thousands of packets a second:
 * on 2 cores such receivers took the CPU from the workers they were meant to measure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
    for (const args of [
      ['link', 'set', 'lo', 'up'],
      ['link', 'add', DEVICE, 'type', 'ifb'],
      // The device frees what it is given at once; a long queue keeps bursts from two workers from being dropped before it.
      ['link', 'set', DEVICE, 'txqueuelen', '10000'],
      ['addr', 'add', `${WIRE.localIp}/24`, 'dev', DEVICE],
      ['link', 'set', DEVICE, 'up'],
    ]) {
      const result = spawnSync('ip', args, { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`ip ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
    }
    return true;
  }
  const unshare = process.getuid?.() === 0 ? ['--net'] : ['--net', '--map-root-user'];
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
