import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MEETING_SCRIPT, speechRecording } from '@svc/service/testing';
import type { Browser } from 'playwright-core';
import {
  ARTIFACTS_DIR,
  createMeeting,
  hostLink,
  joinRoom,
  launchBrowser,
  openPage,
  pollUntil,
  roomServiceEnv,
  saveScreenshot,
  type RoomPage,
} from './support/browser';
import { killChildren, mediaNodeEnv, startMediaNode, startRedis, type Child } from './support/media-nodes';
import { call, startService, tempDataDir, unlimitedKey, waitFor, type ServiceProcess } from './support/service-process';

jest.setTimeout(180_000);

/** Where the recording of the room on the node is kept to look at (test/artifacts is not committed). */
const RECORDED_MKV = path.join(ARTIFACTS_DIR, 'media-nodes-recording.mkv');

/** What /healthz says about this process's workers and the media nodes. */
interface Health {
  workers: { slot: number; routers: number }[];
  nodes: { id: string; shards: number; load: { peers: number; transports: number } }[];
}

describe('recording and live captions of a room on a media node: the control plane runs them on its own worker', () => {
  const secret = randomBytes(32).toString('hex');
  const children: Child[] = [];
  let dataDir: string;
  let workDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let host: RoomPage | undefined;

  const health = async (): Promise<Health> => (await call(svc.url, 'GET', '/healthz')).body as Health;
  const ownRouters = async () => (await health()).workers.reduce((sum, w) => sum + w.routers, 0);
  const nodeTransports = async () => (await health()).nodes.find((n) => n.id === 'a-node')?.load.transports;

  beforeAll(async () => {
    const redis = await startRedis();
    children.push(redis.child);
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    // The page's fake microphone says one sentence of the script (flite), over and over, at 48 kHz as Chromium plays it best.
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-nodes-recording-'));
    const speech = path.join(workDir, 'speech.wav');
    speechRecording([MEETING_SCRIPT[3]!], path.join(workDir, 'speech.webm'));
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', path.join(workDir, 'speech.webm'), '-ar', '48000', '-ac', '1', speech]);
    // A room goes to the node; the control plane's own worker only records (and would take peers were the node full).
    const [node] = await Promise.all([
      startMediaNode(mediaNodeEnv(redis.url, secret, 'a-node', 10)),
      launchBrowser({ extraArgs: [`--use-file-for-fake-audio-capture=${speech}`] }).then((b) => (browser = b)),
    ]);
    children.push(node);
    svc = await startService(dataDir, roomServiceEnv({ SVC_REDIS_URL: redis.url, SVC_NODE_SECRET: secret }));
    await waitFor(async () => (await health()).nodes?.length === 2, 10_000);
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    await browser?.close();
    await svc?.stop();
    await killChildren(children);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('the host records from the toolbar; the recording has the page’s audio and video, sent to the node', async () => {
    expect((await health()).nodes.map((n) => n.id)).toEqual(['local', 'a-node']);
    const meeting = await createMeeting(svc.url, key, { title: 'Recorded on a node' });
    host = await openPage(browser, await hostLink(svc.url, key, meeting.id, 'Nora Node'));
    const page = host.page;
    expect(await joinRoom(page)).toBe('room');
    // The room is on the node, and the control plane's worker holds nothing yet.
    await waitFor(async () => (await health()).nodes.find((n) => n.id === 'a-node')?.load.peers === 1, 10_000);
    expect((await health()).nodes.find((n) => n.id === 'a-node')?.shards).toBe(1);
    expect(await ownRouters()).toBe(0);
    await pollUntil(
      () => 'the page to send microphone and camera',
      async () => {
        const sending = (await page.evaluate('window.__svcRoom.sending()')) as string[];
        return sending.includes('microphone') && sending.includes('camera');
      },
      15_000,
    );

    // The node's transports before the recording (its heartbeat says): the page's send and receive transports.
    await waitFor(async () => (await nodeTransports()) === 2, 10_000);
    const record = page.getByTestId('toggle-recording');
    await record.click();
    await page.locator('.rec-badge').waitFor({ state: 'visible', timeout: 10_000 });
    // The recording shard: a router on the control plane's own worker, with the page's producers piped in from the node.
    await waitFor(async () => (await ownRouters()) === 1 && (await nodeTransports()) === 3, 10_000);
    await saveScreenshot(page, 'media-nodes-recording');
    const started = Date.now();
    await pollUntil(
      () => 'five seconds of recording',
      () => Date.now() - started > 5_000,
      10_000,
      200,
    );
    await record.click();
    await page.locator('.rec-badge').waitFor({ state: 'hidden', timeout: 15_000 });
    // The recording shard closes with its recording, and the node closes its end of the pipe; the room stays on the node.
    await waitFor(async () => (await ownRouters()) === 0 && (await nodeTransports()) === 2, 10_000);
    expect((await health()).nodes.find((n) => n.id === 'a-node')).toMatchObject({ shards: 1, load: { peers: 1 } });

    const tracks = await pollUntil(
      () => 'the tracks recording to be ready',
      async () => {
        const list = (await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/recordings`, key)).body.data as {
          kind: string;
          status: string;
          download_url: string;
          duration_seconds: number;
        }[];
        return list.find((r) => r.kind === 'tracks' && r.status === 'ready');
      },
      30_000,
      200,
    );
    expect(tracks.duration_seconds).toBeGreaterThan(3);
    const signed = new URL(tracks.download_url);
    const download = await fetch(`${svc.url}${signed.pathname}${signed.search}`);
    expect(download.status).toBe(200);
    fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
    fs.writeFileSync(RECORDED_MKV, Buffer.from(await download.arrayBuffer()));
    const streams = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'csv=p=0', RECORDED_MKV], {
      encoding: 'utf8',
    });
    expect(streams.split('\n').filter(Boolean).sort()).toEqual(['audio', 'video']);
    // The audio track is the spoken sentence, not silence.
    const detect = spawnSync('ffmpeg', ['-i', RECORDED_MKV, '-map', '0:a:0', '-af', 'volumedetect', '-f', 'null', '-'], {
      encoding: 'utf8',
    });
    expect(Number(/max_volume: (-?[\d.]+) dB/.exec(detect.stderr)?.[1])).toBeGreaterThan(-30);
  });
  it('the host turns captions on: the node-side microphone is captioned through a recording shard, closed when captions go off', async () => {
    const page = host!.page;
    const cc = page.getByTestId('toggle-captions');
    await cc.click();
    await pollUntil('the CC button to be pressed', async () => (await cc.getAttribute('aria-pressed')) === 'true', 10_000);
    await waitFor(async () => (await ownRouters()) === 1, 10_000);
    let seen: string[] = [];
    await pollUntil(
      () => `the spoken sentence captioned (saw ${JSON.stringify(seen)})`,
      async () => (seen = await page.getByTestId('caption-line').allTextContents()).some((line) => /billing service|friday/i.test(line)),
      60_000,
      200,
    );
    await saveScreenshot(page, 'media-nodes-captions');
    await cc.click();
    await pollUntil('the CC button to be released', async () => (await cc.getAttribute('aria-pressed')) === 'false', 10_000);
    await waitFor(async () => (await ownRouters()) === 0 && (await nodeTransports()) === 2, 10_000);
  });
});
