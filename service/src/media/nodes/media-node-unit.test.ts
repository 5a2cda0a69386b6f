import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const UNIT = path.resolve(__dirname, '../../../../deploy/svc-media-node.service');

describe('deploy/svc-media-node.service', () => {
  const text = fs.readFileSync(UNIT, 'utf8');

  it('passes systemd-analyze verify and is rated OK by systemd-analyze security', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-unit-'));
    try {
      const file = path.join(dir, 'svc-media-node.service');
      fs.writeFileSync(file, text);
      const verify = spawnSync('systemd-analyze', ['verify', '--man=no', '--generators=no', file], { encoding: 'utf8' });
      expect(`${verify.stdout}${verify.stderr}`.split('\n').filter((line) => line.includes('svc-media-node.service'))).toEqual([]);
      expect(verify.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const security = spawnSync('systemd-analyze', ['security', '--offline=true', '--threshold=40', '--no-pager', UNIT], {
      encoding: 'utf8',
    });
    expect(security.stdout).toMatch(/Overall exposure level for svc-media-node\.service: \d\.\d OK/);
  });

  it('runs `svc media-node`, drains on reload (SIGUSR2) and stops on SIGTERM within the timeout', () => {
    expect(text).toMatch(/^ExecStart=\/usr\/bin\/node \/opt\/svc\/service\/bin\/svc\.js media-node$/m);
    expect(text).toMatch(/^ExecReload=\/bin\/kill -USR2 \$MAINPID$/m);
    expect(text).toMatch(/^Restart=on-failure$/m);
    expect(text).toMatch(/^TimeoutStopSec=20$/m);
  });
});
