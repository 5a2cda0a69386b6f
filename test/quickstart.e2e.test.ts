import fs from 'node:fs';
import { call, startService, svcCli, tempDataDir, type ServiceProcess } from './support/service-process';

describe('the service as a user runs it', () => {
  let dataDir: string;
  let svc: ServiceProcess;
  let ownerKey: string;
  beforeAll(async () => {
    dataDir = tempDataDir();
    svc = await startService(dataDir);
    ownerKey = /^(svc_sk_[0-9a-z]{52})$/m.exec(svc.stdout())?.[1] ?? '';
  });
  afterAll(async () => {
    await svc.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a one-time all-scopes key on first start, and is healthy', async () => {
    expect(ownerKey).not.toBe('');
    expect((await call(svc.url, 'GET', '/healthz')).status).toBe(200);
    const me = await call(svc.url, 'GET', '/api/v1/public/me', ownerKey);
    expect(me.status).toBe(200);
    expect(me.body.key.scopes).toEqual([
      'meetings:read',
      'meetings:write',
      'recordings:read',
      'transcripts:read',
      'webinars:write',
      'webhooks:write',
      'integrations:write',
    ]);
  });

  it('with PORT=0, names the port it really listens on in its base URL (join links included)', async () => {
    const port = new URL(svc.url).port;
    expect(port).not.toBe('0');
    expect(svc.stdout()).toContain(`svc listening on http://localhost:${port} (base URL http://localhost:${port},`);
    const created = await call(svc.url, 'POST', '/api/v1/public/meetings', ownerKey, { title: 'Port check' });
    expect(created.body.join_url).toBe(`http://localhost:${port}/m/${created.body.code}`);
  });

  it('accepts a key made by the CLI while it runs, and refuses it as soon as the CLI revokes it', async () => {
    const created = svcCli(dataDir, 'keys', 'create', '--name', 'e2e', '--scopes', 'meetings:read');
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^svc_sk_[0-9a-z]{52}$/);
    expect((await call(svc.url, 'GET', '/api/v1/public/meetings', key)).status).toBe(200);
    expect((await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'x' })).status).toBe(403);
    const id = JSON.parse(svcCli(dataDir, 'keys', 'list', '--json').stdout).find((k: { name: string }) => k.name === 'e2e').id;
    expect(svcCli(dataDir, 'keys', 'revoke', id).code).toBe(0);
    expect((await call(svc.url, 'GET', '/api/v1/public/meetings', key)).status).toBe(401);
  });

  it('refuses the 21st of a real burst of requests within one second with 429 and Retry-After', async () => {
    const key = svcCli(dataDir, 'keys', 'create', '--name', 'burst', '--scopes', 'meetings:read').stdout.trim();
    // Warm the connection pool first, so the burst itself is 30 requests leaving at once on open connections.
    await Promise.all(Array.from({ length: 30 }, () => call(svc.url, 'GET', '/healthz')));
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 30 }, () => call(svc.url, 'GET', '/api/v1/public/meetings', key)));
    const elapsed = Date.now() - started;
    // Not a condition on the check below: a burst slower than a second is a failure of this test's premise, said so.
    expect(elapsed).toBeLessThan(1000);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(20);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(10);
    for (const a of limited) {
      expect(a.body.code).toBe('rate_limited');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(a.headers.get('x-ratelimit-limit')).toBe('120');
    }
  });

  it('refuses what exceeds the minute window of a real burst, whatever its timing', async () => {
    const key = svcCli(
      dataDir,
      'keys',
      'create',
      '--name',
      'minute',
      '--scopes',
      'meetings:read',
      '--rate-limit-per-minute',
      '25',
      '--rate-limit-per-second',
      '1000',
    ).stdout.trim();
    const answers = await Promise.all(Array.from({ length: 40 }, () => call(svc.url, 'GET', '/api/v1/public/meetings', key)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(25);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(15);
  });

  it('does not print a key again on the next start', async () => {
    await svc.stop();
    svc = await startService(dataDir);
    expect(svc.stdout()).not.toMatch(/svc_sk_/);
    expect((await call(svc.url, 'GET', '/api/v1/public/me', ownerKey)).status).toBe(200);
  });
});
