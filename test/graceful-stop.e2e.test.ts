import fs from 'node:fs';
import net from 'node:net';
import { call, startService, tempDataDir, unlimitedKey } from './support/service-process';

describe('graceful stop', () => {
  let dataDir: string;
  let tarpit: net.Server;
  const held: net.Socket[] = [];
  beforeAll(async () => {
    dataDir = tempDataDir();
    // Accepts TCP and never answers: every attempt stays in flight until its 15 s timeout.
    tarpit = net.createServer((socket) => {
      held.push(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => tarpit.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => tarpit.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops within the 10 s limit with a delivery backlog to a receiver that never answers, losing nothing', async () => {
    const key = unlimitedKey(dataDir);
    const env = { SVC_ALLOW_INSECURE_WEBHOOKS: 'true', SVC_WEBHOOK_TIMEOUT_MS: '15000' };
    let svc = await startService(dataDir, env);
    const tarpitUrl = `http://127.0.0.1:${(tarpit.address() as net.AddressInfo).port}/hook`;
    for (let i = 0; i < 8; i++) {
      expect(
        (
          await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
            url: `${tarpitUrl}?e=${i}`,
            events: ['registration.created'],
          })
        ).status,
      ).toBe(201);
    }
    expect((await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'W', kind: 'webinar', slug: 'stop-test' })).status).toBe(
      201,
    );
    for (let i = 0; i < 40; i++) {
      const res = await call(svc.url, 'POST', '/api/v1/public/webinars/stop-test/registrations', key, {
        email: `p${i}@example.com`,
        name: `P${i}`,
      });
      expect(res.status).toBe(201);
    }
    // Wait until the pool is busy with the tarpit (bounded).
    for (let i = 0; i < 100 && held.length < 32; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(held.length).toBeGreaterThanOrEqual(32);

    const started = Date.now();
    const code = await svc.stop('SIGTERM');
    const tookMs = Date.now() - started;
    expect(tookMs).toBeLessThan(10_000);
    expect(code).not.toBeNull();

    // Nothing lost: every delivery is still there after a restart (320 = 40 registrations x 8 endpoints).
    svc = await startService(dataDir, env);
    try {
      const endpoints = (await call(svc.url, 'GET', '/api/v1/public/webhook-endpoints?limit=100', key)).body.data as { id: string }[];
      let deliveries = 0;
      for (const endpoint of endpoints) {
        deliveries += (await call(svc.url, 'GET', `/api/v1/public/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, key)).body.data
          .length;
      }
      expect(deliveries).toBe(320);
    } finally {
      await svc.stop('SIGKILL');
    }
  }, 60_000);
});
