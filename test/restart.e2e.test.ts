import fs from 'node:fs';
import { call, startService, tempDataDir, unlimitedKey } from './support/service-process';

describe('restart safety', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = tempDataDir();
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('keeps everything acknowledged when the process is killed with SIGKILL', async () => {
    const key = unlimitedKey(dataDir);
    let svc = await startService(dataDir);
    const webinar = await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Webinar', kind: 'webinar', slug: 'crash-test' });
    const registration = await call(svc.url, 'POST', '/api/v1/public/webinars/crash-test/registrations', key, {
      email: 'a@example.com',
      name: 'A',
    });
    expect(registration.status).toBe(201);

    // Writes in flight when the kill lands: whatever got a 201 must survive.
    const acknowledged: string[] = [];
    const interrupted: number[] = [];
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; i < 500; i++) {
        try {
          const res = await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: `w${w}-${i}` });
          if (res.status === 201) acknowledged.push(res.body.id);
        } catch {
          interrupted.push(w); // the connection died with the process
          return;
        }
      }
    });
    // Kill once the writers are well under way (a condition, not a sleep), bounded by 10 s.
    for (let waited = 0; acknowledged.length < 40 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);
    expect(await svc.stop('SIGKILL')).toBeNull();
    const acknowledgedAtKill = acknowledged.length;
    await Promise.all(writers);
    // The kill really cut the writers off mid-run: every one of them lost its connection, none finished its 500.
    expect(interrupted.sort()).toEqual([0, 1, 2, 3]);
    expect(acknowledged.length).toBeLessThan(4 * 500);
    expect(acknowledged.length - acknowledgedAtKill).toBeLessThanOrEqual(4);

    svc = await startService(dataDir);
    try {
      for (const id of [webinar.body.id, ...acknowledged]) {
        const res = await call(svc.url, 'GET', `/api/v1/public/meetings/${id}`, key);
        expect([id, res.status]).toEqual([id, 200]);
      }
      const again = await call(svc.url, 'POST', '/api/v1/public/webinars/crash-test/registrations', key, {
        email: 'a@example.com',
        name: 'A',
      });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(registration.body.id);
    } finally {
      await svc.stop();
    }
  });
});
