import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { verifyWebhook } from '@svc/connectors';
import { seedMediaResults, startReceiver, type TestReceiver } from '@svc/service/testing';
import { call, startService, svcCli, tempDataDir, unlimitedKey, waitFor, type ServiceProcess } from './support/service-process';

const CLI = path.resolve(__dirname, '../service/bin/svc.js');

/** The CLI without blocking this process, with room for a backup of a loaded service. */
function svc(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, SVC_DATA_DIR: dataDir }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Something the service acknowledged, and when the answer arrived. */
interface Acked<T> {
  at: number;
  value: T;
}

describe('svc backup while the service writes, and svc restore', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-backup-e2e-'));
  const file = path.join(work, 'svc-backup.tar.gz');
  let source: string;
  let restored: string;
  let receiver: TestReceiver;
  let running: ServiceProcess | undefined;
  let writing = false;
  beforeAll(async () => {
    source = tempDataDir();
    restored = path.join(work, 'restored');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    writing = false;
    await running?.stop();
    await receiver.close();
    fs.rmSync(source, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('restores into an empty directory everything acknowledged before the backup began, and its secrets still work', async () => {
    const key = unlimitedKey(source);
    running = await startService(source, { SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });
    const live = running;
    await waitFor(() => fs.existsSync(path.join(source, 'project.sock')), 60_000);
    expect(svcCli(source, 'project', 'sql', 'create table notes (id serial primary key, body text not null)').code).toBe(0);
    const projectKeys = JSON.parse(svcCli(source, 'project', 'keys', '--json').stdout) as { service_role_key: string };
    expect((await call(live.url, 'POST', '/api/v1/public/meetings', key, { title: 'Load', kind: 'webinar', slug: 'load' })).status).toBe(
      201,
    );

    const meetings: Acked<string>[] = [];
    const registrations: Acked<string>[] = [];
    const endpoints: Acked<{ id: string; secret: string; path: string }>[] = [];
    const keys: Acked<string>[] = [];
    const notes: Acked<string>[] = [];
    const recordings: Acked<string>[] = [];
    writing = true;
    const failures: string[] = [];
    const loop = async (body: (i: number) => Promise<void>, max = 100_000) => {
      try {
        for (let i = 0; writing && i < max; i++) await body(i);
      } catch (err) {
        if (writing) failures.push(String(err));
      }
    };
    const writers = [
      loop(async (i) => {
        const meeting = await call(live.url, 'POST', '/api/v1/public/meetings', key, { title: `m-${i}` });
        if (meeting.status === 201) meetings.push({ at: Date.now(), value: meeting.body.id });
        const registration = await call(live.url, 'POST', '/api/v1/public/webinars/load/registrations', key, {
          email: `r${i}@example.com`,
          name: `R ${i}`,
        });
        if (registration.status === 201) registrations.push({ at: Date.now(), value: registration.body.id });
      }),
      loop(async (i) => {
        const where = `/hook?endpoint=${i}`;
        const res = await call(live.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
          url: receiver.url.replace('/hook', where),
          events: ['registration.created'],
        });
        if (res.status === 201) endpoints.push({ at: Date.now(), value: { id: res.body.id, secret: res.body.secret, path: where } });
      }, 6),
      loop(async (i) => {
        const res = await svc(source, 'keys', 'create', '--name', `k-${i}`, '--scopes', 'meetings:read');
        if (res.code === 0) keys.push({ at: Date.now(), value: res.stdout.trim() });
      }),
      loop(async (i) => {
        const res = await fetch(`${live.url}/project/graphql/v1`, {
          method: 'POST',
          headers: { apikey: projectKeys.service_role_key, 'content-type': 'application/json' },
          body: JSON.stringify({ query: `mutation { insertIntonotesCollection(objects: [{body: "n-${i}"}]) { affectedCount } }` }),
        });
        const answer = (await res.json()) as { data?: { insertIntonotesCollection?: { affectedCount: number } } };
        if (answer.data?.insertIntonotesCollection?.affectedCount === 1) notes.push({ at: Date.now(), value: `n-${i}` });
      }),
      loop(async () => {
        await waitFor(() => meetings.length > recordings.length || !writing, 10_000);
        if (!writing) return;
        const meeting = meetings[recordings.length]!.value;
        for (const id of seedMediaResults(source, meeting).recordingIds) recordings.push({ at: Date.now(), value: id });
        await new Promise((resolve) => setImmediate(resolve));
      }, 6),
    ];
    const counts = () =>
      JSON.stringify({
        meetings: meetings.length,
        registrations: registrations.length,
        endpoints: endpoints.length,
        keys: keys.length,
        notes: notes.length,
        recordings: recordings.length,
      });
    await waitFor(
      () =>
        meetings.length >= 30 &&
        registrations.length >= 30 &&
        endpoints.length >= 3 &&
        keys.length >= 2 &&
        notes.length >= 10 &&
        recordings.length >= 4,
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${counts()}`);
    });

    // What the deliveries of each endpoint are, read back before the backup begins.
    const deliveriesOf = async (url: string, endpointId: string, withKey: string) => {
      const ids: string[] = [];
      for (let cursor = ''; ;) {
        const page = await call(url, 'GET', `/api/v1/public/webhook-endpoints/${endpointId}/deliveries?limit=100${cursor}`, withKey);
        expect(page.status).toBe(200);
        ids.push(...(page.body.data as { id: string }[]).map((d) => d.id));
        if (!page.body.has_more) return ids;
        cursor = `&cursor=${page.body.next_cursor}`;
      }
    };
    const deliveriesBefore = new Map<string, string[]>();
    for (const e of [...endpoints]) deliveriesBefore.set(e.value.id, await deliveriesOf(live.url, e.value.id, key));

    const began = Date.now();
    const backup = await svc(source, 'backup', file);
    const ended = Date.now();
    const acknowledgedDuring = meetings.filter((m) => m.at > began && m.at < ended).length + notes.filter((n) => n.at > began).length;
    writing = false;
    await Promise.all(writers);
    expect(failures).toEqual([]);
    expect(backup).toMatchObject({ code: 0, stdout: '' });
    expect(backup.stderr).toMatch(/^backup written to .*svc-backup\.tar\.gz: \d+ files/);
    // The service went on writing while the backup ran.
    expect(acknowledgedDuring).toBeGreaterThan(0);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(fs.readdirSync(source).filter((f) => f.startsWith('.backup-'))).toEqual([]);
    await running.stop();
    running = undefined;

    const restore = await svc(restored, 'restore', file);
    expect(restore).toMatchObject({ code: 0, stdout: '' });
    expect(restore.stderr).toMatch(/^restored the backup of .* into .*restored; start the service on it/);
    expect((fs.statSync(restored).mode & 0o777).toString(8)).toBe('700');

    const before = <T>(list: Acked<T>[]) => list.filter((a) => a.at < began).map((a) => a.value);
    receiver.requests.length = 0;
    running = await startService(restored, { SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });
    const back = running;
    for (const id of before(meetings))
      expect([id, (await call(back.url, 'GET', `/api/v1/public/meetings/${id}`, key)).status]).toEqual([id, 200]);
    for (const k of before(keys)) expect((await call(back.url, 'GET', '/api/v1/public/meetings?limit=1', k)).status).toBe(200);
    for (const [endpointId, ids] of deliveriesBefore) {
      const now = await deliveriesOf(back.url, endpointId, key);
      expect(ids.filter((id) => !now.includes(id))).toEqual([]);
    }
    for (const id of before(recordings)) {
      const download = await fetch(`${back.url}/api/v1/public/recordings/${id}/download`, { headers: { authorization: `Bearer ${key}` } });
      expect([id, download.status]).toEqual([id, 200]);
      expect(Buffer.from(await download.arrayBuffer())).toEqual(fs.readFileSync(path.join(source, 'recordings', `${id}.webm`)));
      expect(fs.readFileSync(path.join(restored, 'recordings', `${id}.webm`))).toEqual(
        fs.readFileSync(path.join(source, 'recordings', `${id}.webm`)),
      );
    }
    await waitFor(() => fs.existsSync(path.join(restored, 'project.sock')), 60_000);
    const rows = svcCli(restored, 'project', 'sql', 'select body from notes');
    expect(rows.code).toBe(0);
    const bodies = (JSON.parse(rows.stdout) as { body: string }[]).map((r) => r.body);
    expect(before(notes).filter((n) => !bodies.includes(n))).toEqual([]);

    // The webhook secrets were sealed with the master key in the backup: every delivery of the restored service, one
    // for a registration made now included, verifies with the secret its endpoint was created with.
    const after = await call(back.url, 'POST', '/api/v1/public/webinars/load/registrations', key, {
      email: 'after@example.com',
      name: 'After',
    });
    expect(after.status).toBe(201);
    const secrets = new Map(before(endpoints).map((e) => [e.path, e.secret]));
    const forAfter = () =>
      receiver.requests.filter((r) => secrets.has(r.path) && r.rawBody.toString().includes(after.body.id)).map((r) => r.path);
    await waitFor(() => new Set(forAfter()).size === secrets.size, 30_000);
    const received = receiver.requests.filter((r) => secrets.has(r.path));
    for (const request of received) {
      expect(() =>
        verifyWebhook({ rawBody: request.rawBody, headers: request.headers, secrets: secrets.get(request.path)! }),
      ).not.toThrow();
    }
  }, 240_000);

  it('refuses a non-empty directory, a damaged file and a backup of a newer schema, with exit code 1 and the reason', async () => {
    expect(fs.existsSync(file)).toBe(true);
    const busy = await svc(source, 'restore', file);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/^svc: restore refused: .* is not empty: restore only into an empty or new data directory/);

    const truncated = path.join(work, 'truncated.tar.gz');
    fs.writeFileSync(truncated, fs.readFileSync(file).subarray(0, 4096));
    const damaged = await svc(path.join(work, 'target-1'), 'restore', truncated);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toMatch(/^svc: restore refused: .*truncated\.tar\.gz is not a complete svc backup/);
    expect(fs.existsSync(path.join(work, 'target-1'))).toBe(false);

    // The same backup claiming a schema version this release does not have (same length, so the archive stays well-formed).
    const tar = zlib.gunzipSync(fs.readFileSync(file));
    const header = tar.subarray(512, 2048).toString('latin1');
    const version = /"schema_version": (\d+)/.exec(header)![1]!;
    const newer = '9'.repeat(version.length);
    expect(Number(newer)).toBeGreaterThan(Number(version));
    tar.write(`"schema_version": ${newer}`, 512 + header.indexOf(`"schema_version": ${version}`), 'latin1');
    const future = path.join(work, 'future.tar.gz');
    fs.writeFileSync(future, zlib.gzipSync(tar));
    const refused = await svc(path.join(work, 'target-2'), 'restore', future);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^svc: restore refused: the backup was made by svc \\S+ at schema version ${newer}; this svc \\(\\S+\\) knows schema versions up to ${version}`,
      ),
    );
    expect(fs.existsSync(path.join(work, 'target-2'))).toBe(false);

    const usage = await svc(path.join(work, 'target-3'), 'restore');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/svc restore FILE/);
  }, 60_000);
});
