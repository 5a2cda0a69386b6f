import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const UNIT = path.resolve(__dirname, '../../../deploy/svc.service');

/** `systemd-analyze verify` of a copy of `text` named svc.service: its exit code and the lines about that unit. */
function verify(text: string): { status: number | null; lines: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-unit-'));
  try {
    const file = path.join(dir, 'svc.service');
    fs.writeFileSync(file, text);
    const run = spawnSync('systemd-analyze', ['verify', '--man=no', '--generators=no', file], { encoding: 'utf8' });
    if (run.error) throw run.error;
    const lines = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.includes('svc.service'));
    return { status: run.status, lines };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The unit's settings as key -> values (a key may repeat), comments left out. */
function settings(text: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) map.set(match[1]!, [...(map.get(match[1]!) ?? []), match[2]!]);
  }
  return map;
}

describe('deploy/svc.service', () => {
  const text = fs.readFileSync(UNIT, 'utf8');

  it('passes systemd-analyze verify without a warning about the unit', () => {
    expect(verify(text)).toEqual({ status: 0, lines: [] });
  });

  it('is rated OK (exposure at most 4.0) by systemd-analyze security', () => {
    // --threshold counts in tenths of the printed exposure level.
    const run = spawnSync('systemd-analyze', ['security', '--offline=true', '--threshold=40', '--no-pager', UNIT], { encoding: 'utf8' });
    expect(run.stdout).toMatch(/Overall exposure level for svc\.service: \d\.\d OK/);
    expect(run.status).toBe(0);
  });

  it('the verify check fails on an unknown key and on a missing program', () => {
    const typo = verify(text.replace('LockPersonality=yes', 'LockPersonalty=yes'));
    expect(typo.lines.join('\n')).toMatch(/Unknown key 'LockPersonalty'/);
    const missing = verify(text.replace('ExecStart=/usr/bin/node ', 'ExecStart=/usr/bin/no-such-node '));
    expect(missing.status).not.toBe(0);
    expect(missing.lines.join('\n')).toMatch(/no-such-node is not executable/);
  });

  it('runs node on the built service as its own user, with its state directory, low ports and a stop longer than 10 s', () => {
    const s = settings(text);
    expect(s.get('ExecStart')).toEqual(['/usr/bin/node /opt/svc/service/dist/main.js']);
    expect(s.get('WorkingDirectory')).toEqual(['/opt/svc']);
    expect(s.get('User')).toEqual(['svc']);
    expect(s.get('StateDirectory')).toEqual(['svc']);
    expect(s.get('Environment')).toContain('SVC_DATA_DIR=/var/lib/svc');
    expect(s.get('AmbientCapabilities')).toEqual(['CAP_NET_BIND_SERVICE']);
    expect(s.get('CapabilityBoundingSet')).toEqual(['CAP_NET_BIND_SERVICE']);
    expect(s.get('Restart')).toEqual(['on-failure']);
    expect(Number(s.get('TimeoutStopSec')![0])).toBeGreaterThan(10);
    expect(s.get('RestrictAddressFamilies')).toEqual(['AF_INET AF_INET6 AF_UNIX AF_NETLINK']);
    for (const key of ['NoNewPrivileges', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'LockPersonality', 'RestrictNamespaces'])
      expect([key, s.get(key)]).toEqual([key, ['yes']]);
    expect(s.get('ProtectSystem')).toEqual(['strict']);
    expect(s.get('SystemCallArchitectures')).toEqual(['native']);
    // V8's JIT and PGlite's WebAssembly need writable executable memory; PrivateUsers would void CAP_NET_BIND_SERVICE.
    expect(s.has('MemoryDenyWriteExecute')).toBe(false);
    expect(s.has('PrivateUsers')).toBe(false);
  });
});
