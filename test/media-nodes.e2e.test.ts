import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import {
  createMeeting,
  joinAndTimeFirstFrame,
  launchBrowser,
  openPage,
  receiveStats,
  roomUrl,
  saveScreenshot,
  waitForCount,
  waitForMediaFlowing,
  type RoomPage,
} from './support/browser';
import { bothReceiving, joinAs, mediaNodeEnv, startMediaNode, startRedis, SVC_CLI as CLI, type Child } from './support/media-nodes';
import { call, startService, tempDataDir, unlimitedKey, waitFor, type ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

/** What /healthz says about one media node. */
interface NodeHealth {
  id: string;
  draining: boolean;
  connected: boolean;
  shards: number;
  load: { workers: number; peers: number; consumers: number; transports: number; cpu: number; workerCpu?: { shares: (number | null)[] } };
}

describe('media nodes placed through Redis: a control plane without workers, rooms on node processes', () => {
  const secret = randomBytes(32).toString('hex');
  const children: Child[] = [];
  const pages: RoomPage[] = [];
  let redisUrl: string;
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;

  const nodeEnv = (id: string, maxPeers: number): Record<string, string> => mediaNodeEnv(redisUrl, secret, id, maxPeers);
  const startNode = async (id: string, maxPeers: number) => {
    const node = await startMediaNode(nodeEnv(id, maxPeers));
    children.push(node);
    return node;
  };
  const nodes = async (): Promise<NodeHealth[]> => (await call(svc.url, 'GET', '/healthz')).body.nodes as NodeHealth[];
  const nodeHolding = async (peers: number): Promise<NodeHealth> => {
    let found: NodeHealth | undefined;
    await waitFor(async () => Boolean((found = (await nodes()).find((n) => n.load.peers === peers && n.shards > 0))), 10_000);
    return found!;
  };
  const join = (code: string, name: string) => joinAs(browser, svc.url, code, name, pages);
  const leave = async (page: RoomPage) => {
    await page.close();
    pages.splice(pages.indexOf(page), 1);
  };

  beforeAll(async () => {
    const redis = await startRedis();
    redisUrl = redis.url;
    children.push(redis.child);
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    await Promise.all([startNode('node-a', 3), startNode('node-b', 3), launchBrowser().then((b) => (browser = b))]);
    svc = await startService(dataDir, { SVC_RTC_WORKERS: '0', SVC_REDIS_URL: redisUrl, SVC_NODE_SECRET: secret });
    await waitFor(async () => (await nodes()).length === 2, 10_000);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(pages.map((p) => p.close()));
    await browser?.close();
    await svc?.stop();
    for (const child of children.reverse()) {
      if (child.running()) child.proc.kill('SIGKILL');
      await child.exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('puts a room on one node, the pages receive media through it, survive a kill -9 of it, and a drained node exits when its room ends', async () => {
    const health = await call(svc.url, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body.workers).toEqual([]);
    expect((health.body.nodes as NodeHealth[]).map((n) => [n.id, n.load.workers, n.draining])).toEqual([
      ['node-a', 1, false],
      ['node-b', 1, false],
    ]);
    // Each node reads its workers' CPU at every heartbeat (for a webinar's viewers): one share per worker, from the second on.
    await waitFor(
      async () => (await nodes()).every((n) => typeof n.load.workerCpu?.shares[0] === 'number' && n.load.workerCpu.shares.length === 1),
      10_000,
    );

    // (a) Both pages of a room land on one node and receive each other's audio and video through it.
    const meeting = await createMeeting(svc.url, key, { title: 'On a media node' });
    const alice = await join(meeting.code, 'Alice');
    const bob = await openPage(browser, roomUrl(svc.url, meeting.code, { name: 'Bob' }));
    pages.push(bob);
    const firstFrameMs = await joinAndTimeFirstFrame(bob.page);
    // eslint-disable-next-line no-console -- the figure the README's Topology section quotes
    console.log(`media-nodes: Join click to first remote video frame through a media node: ${firstFrameMs} ms`);
    for (const { page } of [alice, bob]) {
      await waitForCount(page, '[data-testid=tile]', 2);
      await waitForMediaFlowing(page);
    }
    const holder = await nodeHolding(2);
    const other = (await nodes()).find((n) => n.id !== holder.id)!;
    expect(other.shards).toBe(0);
    await waitFor(async () => ((await nodes()).find((n) => n.id === holder.id)?.load.consumers ?? 0) >= 4, 10_000);
    await saveScreenshot(bob.page, 'media-nodes-in-call');

    // (c) kill -9 of that node: the room moves to the other node and both pages receive media again by themselves.
    const before = await Promise.all([receiveStats(alice.page), receiveStats(bob.page)]);
    const killed = children.find((c) => c.out().includes(`media node ${holder.id} listening`))!;
    const killedAt = Date.now();
    killed.proc.kill('SIGKILL');
    await Promise.all(
      [alice, bob].map((p, i) => waitForMediaFlowing(p.page, { sinceTransport: before[i]!.transportId!, frames: 10, timeoutMs: 10_000 })),
    );
    const recoveredMs = Date.now() - killedAt;
    // eslint-disable-next-line no-console -- how long a node's death interrupts a call
    console.log(`media-nodes: media back on both pages ${recoveredMs} ms after the node was killed`);
    expect(recoveredMs).toBeLessThan(10_000);
    await waitFor(async () => (await nodes()).map((n) => n.id).join() === other.id, 6_000);
    // eslint-disable-next-line no-console -- how long a dead node stays in placement
    console.log(`media-nodes: the killed node left /healthz and placement ${Date.now() - killedAt} ms after the kill`);
    expect((await nodeHolding(2)).id).toBe(other.id);

    // A new room goes to the least-loaded node: the idle one, not the one carrying Alice and Bob (it has room for a third peer).
    const survivor = children.find((c) => c.out().includes(`media node ${other.id} listening`))!;
    const nodeC = await startNode('node-c', 1);
    await waitFor(async () => (await nodes()).length === 2, 10_000);
    const meetingB = await createMeeting(svc.url, key, { title: 'Across two nodes' });
    const carol = await join(meetingB.code, 'Carol');
    await waitFor(async () => (await nodes()).find((n) => n.id === 'node-c')?.load.peers === 1, 10_000);
    expect((await nodes()).find((n) => n.id === other.id)).toMatchObject({ shards: 1, load: { peers: 2 } });

    // (d) Drain the busy node (from another process, through Redis): it stays up while its room runs, and exits once it ended.
    const drainRequest = spawn(process.execPath, [CLI, 'media-node', '--drain'], {
      env: { ...process.env, ...nodeEnv(other.id, 3) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let drainOut = '';
    drainRequest.stdout.on('data', (d: Buffer) => (drainOut += d.toString()));
    expect(await new Promise((resolve) => drainRequest.once('exit', resolve))).toBe(0);
    expect(drainOut).toContain(`media node ${other.id} drains`);
    await waitFor(async () => (await nodes()).find((n) => n.id === other.id)?.draining === true, 5_000);
    expect(survivor.running()).toBe(true);
    await leave(alice);
    await leave(bob);
    const leftAt = Date.now();
    expect(await survivor.exited).toBe(0);
    // eslint-disable-next-line no-console -- how soon a drained node stops once its last room ended
    console.log(`media-nodes: the drained node exited ${Date.now() - leftAt} ms after its room's last page closed`);
    await waitFor(async () => !(await nodes()).some((n) => n.id === other.id), 6_000);

    // (b) With one peer per node, the room's second page lands on another node; the producers are piped between them.
    await startNode('node-d', 1);
    await waitFor(async () => (await nodes()).length === 2, 10_000);
    const dave = await join(meetingB.code, 'Dave');
    await bothReceiving(carol, dave);
    const spread = await nodes();
    expect(spread.map((n) => [n.id, n.load.peers, n.shards])).toEqual([
      ['node-c', 1, 1],
      ['node-d', 1, 1],
    ]);
    expect(nodeC.running()).toBe(true);
    await saveScreenshot(dave.page, 'media-nodes-spanning');
  });
});
