import fs from 'node:fs';
import { startReceiver, type TestReceiver } from '@svc/service/testing';
import { call, startService, svcCli, svcCliAsync, tempDataDir, type ServiceProcess } from './support/service-process';

describe('the CLI writing beside a loaded service', () => {
  let dataDir: string;
  let svc: ServiceProcess;
  let receiver: TestReceiver;
  beforeAll(async () => {
    dataDir = tempDataDir();
    receiver = await startReceiver();
    svc = await startService(dataDir, { SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });
  });
  afterAll(async () => {
    await svc.stop();
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps answering without a 5xx, and stays up, while `svc keys create` runs in a loop', async () => {
    const args = ['--scopes', 'all', '--rate-limit-per-second', '100000', '--rate-limit-per-minute', '1000000'];
    const key = svcCli(dataDir, 'keys', 'create', '--name', 'load', ...args).stdout.trim();
    for (let i = 0; i < 4; i++) {
      const res = await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
        url: receiver.url,
        events: ['registration.created'],
      });
      expect(res.status).toBe(201);
    }
    expect((await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Load', kind: 'webinar', slug: 'load' })).status).toBe(
      201,
    );

    const statuses: number[] = [];
    let cliRunning = true;
    const post = async (path: string, body: unknown, idempotencyKey: string) => {
      const res = await fetch(svc.url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    };
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; i < 2_000 && cliRunning; i++) {
        await post('/api/v1/public/meetings', { title: `w${w}-${i}` }, `m-${w}-${i}`);
        await post('/api/v1/public/webinars/load/registrations', { email: `w${w}-${i}@example.com`, name: 'Load' }, `r-${w}-${i}`);
      }
    });
    const cliCodes: number[] = [];
    for (let i = 0; i < 8; i++)
      cliCodes.push((await svcCliAsync(dataDir, 'keys', 'create', '--name', `cli-${i}`, '--scopes', 'meetings:read')).code);
    cliRunning = false;
    await Promise.all(writers);

    expect(cliCodes).toEqual(Array(8).fill(0));
    expect(statuses.length).toBeGreaterThan(100);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    // The delivery worker went on too: deliveries keep arriving after the CLI loop.
    const before = receiver.requests.length;
    await post('/api/v1/public/webinars/load/registrations', { email: 'after@example.com', name: 'After' }, 'after');
    for (let i = 0; i < 500 && receiver.requests.length < before + 4; i++) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.requests.length).toBeGreaterThanOrEqual(before + 4);
  }, 90_000);

  it('dashboard-link prints a link to the running service’s base URL without the environment repeated; svc --help lists it', () => {
    const link = svcCli(dataDir, 'dashboard-link');
    expect(link.code).toBe(0);
    expect(link.stdout).toMatch(new RegExp(`^${svc.url.replace('127.0.0.1', 'localhost')}/sign-in#token=\\S+\\n$`));
    expect(link.stdout).not.toContain('localhost:8080');
    const help = svcCli(dataDir, '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/\n {2}dashboard-link +Prints a one-time dashboard sign-in link/);
    expect(svcCli(dataDir, 'help', 'dashboard-link').stdout).toContain('running service’s base URL');
    expect(svcCli(dataDir, 'help', 'nope')).toMatchObject({ code: 2, stdout: '' });
  });
});
