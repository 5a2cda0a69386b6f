import { startReceiver, type TestReceiver } from '@svc/service/testing';
import fs from 'node:fs';
import { startVerifyReceiver } from './receivers/verify-receiver';
import { call, startService, tempDataDir, type ServiceProcess, waitFor, unlimitedKey } from './support/service-process';

const ENV = { SVC_ALLOW_INSECURE_WEBHOOKS: 'true' };

describe('webhooks against the real service process', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess | undefined;
  beforeEach(() => {
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
  });
  afterEach(async () => {
    await svc?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no event across a SIGKILL, and sends none again after its success was recorded', async () => {
    let receiver: TestReceiver | undefined;
    try {
      receiver = await startReceiver(() => ({ status: 204, delayMs: 150 }));
      svc = await startService(dataDir, ENV);
      const endpoints: string[] = [];
      for (let i = 0; i < 2; i++) {
        const ep = await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
          url: `${receiver.url}?ep=${i}`,
          events: ['registration.created'],
        });
        endpoints.push(ep.body.id);
      }
      await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Crash webinar', kind: 'webinar', slug: 'crash' });
      const total = 60;
      for (let i = 0; i < total; i++) {
        expect(
          (await call(svc.url, 'POST', '/api/v1/public/webinars/crash/registrations', key, { email: `p${i}@example.com`, name: `P${i}` }))
            .status,
        ).toBe(201);
      }
      await waitFor(() => receiver!.requests.length >= 20, 10_000);
      await svc.stop('SIGKILL');
      const killedAt = Date.now();
      const receivedBeforeKill = receiver.requests.length;
      expect(receivedBeforeKill).toBeLessThan(total * 2);

      svc = await startService(dataDir, ENV);
      const deliveries = async () =>
        (
          await Promise.all(
            endpoints.map(
              async (id) => (await call(svc!.url, 'GET', `/api/v1/public/webhook-endpoints/${id}/deliveries?limit=100`, key)).body.data,
            ),
          )
        ).flat();
      await waitFor(
        async () => (await deliveries()).filter((d: { status: string }) => d.status === 'succeeded').length === total * 2,
        30_000,
      );

      const events = (await call(svc.url, 'GET', '/api/v1/public/triggers/registration.created?limit=100', key)).body.data.map(
        (e: { id: string }) => e.id,
      );
      expect(events).toHaveLength(total);
      const receipts = new Map<string, number>();
      for (const r of receiver.requests) {
        const id = `${r.headers['webhook-id']} ${r.path}`;
        receipts.set(id, (receipts.get(id) ?? 0) + 1);
      }
      for (const d of await deliveries()) {
        const success = d.attempts.filter((a: { status_code: number }) => a.status_code === 204);
        expect(success).toHaveLength(1);
        expect(d.attempts.at(-1).status_code).toBe(204);
        const endpointIndex = endpoints.indexOf(d.endpoint_id);
        const count = receipts.get(`${d.event_id} /hook?ep=${endpointIndex}`) ?? 0;
        expect(count).toBeGreaterThanOrEqual(1);
        // Recorded before the kill: never sent again. Otherwise at most once more, for the attempt the kill cut off.
        if (Date.parse(success[0].started_at) < killedAt) expect([d.id, count]).toEqual([d.id, 1]);
        else expect(count).toBeLessThanOrEqual(2);
      }
      expect([...receipts.keys()].filter((k) => events.includes(k.split(' ')[0]))).toHaveLength(total * 2);
    } finally {
      await receiver?.close();
    }
  });

  it('deliveries verify in a receiver written in Python, also across a secret rotation', async () => {
    svc = await startService(dataDir, ENV);
    const created = await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
      url: 'http://127.0.0.1:9/not-yet',
      events: ['registration.created'],
    });
    const python = await startVerifyReceiver({ secrets: [created.body.secret], require: 'both', maxSeconds: 60 });
    try {
      await call(svc.url, 'PATCH', `/api/v1/public/webhook-endpoints/${created.body.id}`, key, { url: `${python.url}/hook` });
      expect(
        (await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Py webinar', kind: 'webinar', slug: 'py-webinar' })).status,
      ).toBe(201);
      expect(
        (await call(svc.url, 'POST', '/api/v1/public/webinars/py-webinar/registrations', key, { email: 'a@example.com', name: 'A' }))
          .status,
      ).toBe(201);
      await waitFor(() => python.deliveries().length === 1, 10_000);
      const rotated = await call(svc.url, 'POST', `/api/v1/public/webhook-endpoints/${created.body.id}/rotate-secret`, key);
      expect(rotated.body.secret).not.toBe(created.body.secret);
      // A receiver that knows only the NEW secret: it verifies only if the rotation really signs with it.
      const newOnly = await startVerifyReceiver({ secrets: [rotated.body.secret], require: 'both', maxSeconds: 60 });
      try {
        await call(svc.url, 'PATCH', `/api/v1/public/webhook-endpoints/${created.body.id}`, key, { url: `${newOnly.url}/hook` });
        expect(
          (await call(svc.url, 'POST', '/api/v1/public/webinars/py-webinar/registrations', key, { email: 'b@example.com', name: 'B' }))
            .status,
        ).toBe(201);
        await waitFor(() => newOnly.deliveries().length === 1, 10_000);
        expect(newOnly.deliveries().map((d) => [d.event_type, d.valid_svc, d.valid_standard, d.status])).toEqual([
          ['registration.created', true, true, 204],
        ]);
      } finally {
        await newOnly.stop();
      }
      // And the old secret still verifies during the overlap.
      await call(svc.url, 'PATCH', `/api/v1/public/webhook-endpoints/${created.body.id}`, key, { url: `${python.url}/hook` });
      expect(
        (await call(svc.url, 'POST', '/api/v1/public/webinars/py-webinar/registrations', key, { email: 'c@example.com', name: 'C' }))
          .status,
      ).toBe(201);
      await waitFor(() => python.deliveries().length === 2, 10_000);
      expect(python.deliveries().map((d) => [d.event_type, d.valid_svc, d.valid_standard, d.status])).toEqual([
        ['registration.created', true, true, 204],
        ['registration.created', true, true, 204],
      ]);
      // The receiver has its 204 before the service records the attempt: wait for the record, not the request.
      const service = svc;
      const statuses = async (): Promise<string[]> =>
        (await call(service.url, 'GET', `/api/v1/public/webhook-endpoints/${created.body.id}/deliveries`, key)).body.data.map(
          (d: { status: string }) => d.status,
        );
      await waitFor(async () => (await statuses()).every((status) => status === 'succeeded'), 10_000);
      expect(await statuses()).toEqual(['succeeded', 'succeeded', 'succeeded']);
    } finally {
      await python.stop();
    }
  });
});
