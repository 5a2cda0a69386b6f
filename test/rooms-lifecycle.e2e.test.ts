import fs from 'node:fs';
import path from 'node:path';
import type { JoinCredential } from '@svc/service/testing';
import { RoomClient } from '@svc/service/testing';
import { call, isProcessRunning, startService, tempDataDir, unlimitedKey, waitFor, type ServiceProcess } from './support/service-process';

/** The service process with its media workers: start-up, restart after a crash, and shutdown. */
describe('rooms across starts and stops of the service', () => {
  let dataDir: string;
  let svc: ServiceProcess | undefined;
  const minPort = 42_000 + Math.floor(Math.random() * 800) * 20;
  const env = {
    SVC_RTC_WORKERS: '2',
    SVC_RTC_MIN_PORT: String(minPort),
    SVC_RTC_MAX_PORT: String(minPort + 19),
    SVC_RTC_LISTEN_IP: '127.0.0.1',
  };
  beforeAll(() => {
    dataDir = tempDataDir();
  });
  afterAll(async () => {
    await svc?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports its workers, records who was in a room when it crashed as left, and stops its workers on SIGTERM', async () => {
    const key = unlimitedKey(dataDir);
    svc = await startService(dataDir, env);
    const health = await call(svc.url, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body.workers).toHaveLength(2);
    expect(health.body.workers.map((w: { port: number }) => w.port)).toEqual([minPort, minPort + 10]);

    const meeting = (await call(svc.url, 'POST', '/api/v1/public/meetings', key, { title: 'Crash test' })).body;
    const credential = (await call(svc.url, 'POST', `/rooms/v1/${meeting.code}/credentials`, undefined, { name: 'Ann' }))
      .body as JoinCredential;
    const { answer } = await RoomClient.join(credential);
    expect(answer).toMatchObject({ ok: true, data: { status: 'joined' } });

    await svc.stop('SIGKILL');
    const orphans = health.body.workers.map((w: { pid: number }) => w.pid) as number[];
    // mediasoup workers exit by themselves once the process that spawned them is gone.
    await waitFor(() => orphans.every((pid) => !isProcessRunning(pid)), 10_000);

    svc = await startService(dataDir, env);
    const people = await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/participants`, key);
    expect(people.body.data).toEqual([expect.objectContaining({ name: 'Ann', left_at: expect.any(String) })]);
    expect((await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}`, key)).body.status).toBe('live');

    const workers = ((await call(svc.url, 'GET', '/healthz')).body.workers as { pid: number }[]).map((w) => w.pid);
    const again = (await call(svc.url, 'POST', `/rooms/v1/${meeting.code}/credentials`, undefined, { name: 'Ann' })).body as JoinCredential;
    const { client } = await RoomClient.join(again);
    // The project database starts beside the API and a stop waits for that start; on a loaded machine it takes seconds.
    await waitFor(() => fs.existsSync(path.join(dataDir, 'project.sock')), 120_000);
    const started = Date.now();
    expect(await svc.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await client.closed()).not.toBeNull();
    expect(workers.every((pid) => !isProcessRunning(pid))).toBe(true);
    svc = undefined;
  }, 240_000);
});
