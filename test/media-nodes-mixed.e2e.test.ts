import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import {
  createMeeting,
  launchBrowser,
  receiveStats,
  roomServiceEnv,
  saveScreenshot,
  waitForMediaFlowing,
  type RoomPage,
} from './support/browser';
import { bothReceiving, joinAs, killChildren, mediaNodeEnv, startMediaNode, startRedis, type Child } from './support/media-nodes';
import { call, startService, tempDataDir, unlimitedKey, waitFor, type ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

/** A place in /healthz: the control plane's own workers ("local") or a media node. */
interface Place {
  id: string;
  connected: boolean;
  draining: boolean;
  shards: number;
  load: { workers: number; peers: number; cpu: number };
}

/** The pids of `pid`'s child processes (every thread's children), from /proc. */
function childPids(pid: number): number[] {
  const tasks = fs.readdirSync(`/proc/${pid}/task`);
  return tasks.flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number));
}

/** The pids of the mediasoup workers a media node process runs. */
function workerPids(node: Child): number[] {
  return childPids(node.proc.pid!).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('mediasoup-worke');
    } catch {
      return false; // exited meanwhile
    }
  });
}

describe('a control plane with its own workers beside a media node: placement by load, a room across both, a node worker dying', () => {
  const secret = randomBytes(32).toString('hex');
  const children: Child[] = [];
  const pages: RoomPage[] = [];
  let redisUrl: string;
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;

  const places = async (): Promise<Place[]> => (await call(svc.url, 'GET', '/healthz')).body.nodes as Place[];
  const place = async (id: string): Promise<Place | undefined> => (await places()).find((p) => p.id === id);
  const join = (code: string, name: string) => joinAs(browser, svc.url, code, name, pages);

  beforeAll(async () => {
    const redis = await startRedis();
    redisUrl = redis.url;
    children.push(redis.child);
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    browser = await launchBrowser();
    svc = await startService(dataDir, roomServiceEnv({ SVC_REDIS_URL: redisUrl, SVC_NODE_SECRET: secret }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(pages.map((p) => p.close()));
    await browser?.close();
    await svc?.stop();
    await killChildren(children);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('puts a new room on the node rather than the own worker, spans a room over node and local when the node is full, and moves the rooms of a dead node worker', async () => {
    expect((await places()).map((p) => [p.id, p.load.workers])).toEqual([['local', 1]]);

    // Room A on the control plane's own worker, the only place yet.
    const meetingA = await createMeeting(svc.url, key, { title: 'On the local worker' });
    const alice = await join(meetingA.code, 'Alice');
    const bob = await join(meetingA.code, 'Bob');
    await bothReceiving(alice, bob);
    expect(await place('local')).toMatchObject({ load: { workers: 1 } });

    // A node capped at one peer joins: new rooms go to it, and the own worker takes peers only when it is full.
    const node = await startMediaNode(mediaNodeEnv(redisUrl, secret, 'node-m', 1));
    children.push(node);
    await waitFor(async () => (await place('node-m')) !== undefined, 15_000);

    // Room B's first page lands on the node; its second finds the node full and lands on local: the room spans both.
    const meetingB = await createMeeting(svc.url, key, { title: 'Across local and a node' });
    const carol = await join(meetingB.code, 'Carol');
    await waitFor(async () => (await place('node-m'))?.load.peers === 1, 10_000);
    const dave = await join(meetingB.code, 'Dave');
    await bothReceiving(carol, dave);
    expect(await place('node-m')).toMatchObject({ connected: true, shards: 1, load: { peers: 1 } });
    // Carol's media reaches Dave (on local) only through the pipe from the node, and Dave's reaches Carol the other way.
    await saveScreenshot(dave.page, 'media-nodes-mixed-spanning');

    // kill -9 of the node's mediasoup worker (not the node): room B moves, room A (on local) is untouched.
    const [killedPid, ...others] = workerPids(node);
    expect(killedPid).toBeDefined();
    expect(others).toEqual([]);
    const before = await Promise.all([alice, bob, carol, dave].map((p) => receiveStats(p.page)));
    const killedAt = Date.now();
    process.kill(killedPid!, 'SIGKILL');
    await Promise.all(
      [carol, dave].map((p, i) =>
        waitForMediaFlowing(p.page, { sinceTransport: before[i + 2]!.transportId!, frames: 10, timeoutMs: 10_000 }),
      ),
    );
    const recoveredMs = Date.now() - killedAt;
    // eslint-disable-next-line no-console -- how long a node worker's death interrupts a call
    console.log(`media-nodes-mixed: media back on both pages of the moved room ${recoveredMs} ms after the node's worker was killed`);
    expect(recoveredMs).toBeLessThan(10_000);
    for (const [i, page] of [alice, bob].entries()) expect((await receiveStats(page.page)).transportId).toBe(before[i]!.transportId);

    // The node lives on with a replacement worker and stays in placement, its record still heartbeating.
    expect(node.running()).toBe(true);
    await waitFor(async () => workerPids(node).length === 1 && workerPids(node)[0] !== killedPid, 10_000);
    await waitFor(async () => {
      const nodeM = await place('node-m');
      return nodeM?.connected === true && nodeM.load.workers === 1 && !nodeM.draining;
    }, 5_000);
    const after = await places();
    // eslint-disable-next-line no-console -- where the moved room went
    console.log(`media-nodes-mixed: after the worker's death: ${JSON.stringify(after.map((p) => [p.id, p.shards, p.load.peers]))}`);
    await bothReceiving(carol, dave);
    await saveScreenshot(carol.page, 'media-nodes-mixed-after-worker-death');

    // Still in placement: a room goes to the node's replacement worker (the moved room, if it went there; else a new one).
    if (after.find((p) => p.id === 'node-m')!.shards === 0)
      await join((await createMeeting(svc.url, key, { title: 'After the worker died' })).code, 'Erin');
    await waitFor(async () => (await place('node-m'))?.load.peers === 1, 10_000);
    expect(await place('node-m')).toMatchObject({ connected: true, shards: 1, load: { workers: 1 } });
  });
});
