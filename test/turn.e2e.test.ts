import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  createMeeting,
  freePort,
  joinRoom,
  launchBrowser,
  pollUntil,
  roomServiceEnv,
  roomUrl,
  saveScreenshot,
  waitForCount,
  waitForMediaFlowing,
} from './support/browser';
import { call, isProcessRunning, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

/**
 * Makes every RTCPeerConnection of the page relay-only (as a browser on a network that blocks everything but the
 * TURN server) without changing the page, and keeps them for getStats(). With `tcpOnly` the browser is given
 * only the `?transport=tcp` TURN URLs (as on a network that blocks UDP).
 */
function forceRelayOnly(tcpOnly: boolean): void {
  type Config = { iceServers?: unknown[]; iceTransportPolicy?: string } | undefined;
  const g = globalThis as unknown as {
    RTCPeerConnection: new (config?: Config) => { setConfiguration(config: Config): void };
    __relayPeerConnections: unknown[];
    __relayIceServers: unknown[];
  };
  const Native = g.RTCPeerConnection;
  g.__relayPeerConnections = [];
  g.__relayIceServers = [];
  const relayOnly = (config: Config): Config => {
    const iceServers = (config?.iceServers ?? []).map((server) => {
      const { urls, ...rest } = server as { urls: string[] };
      return { ...rest, urls: tcpOnly ? urls.filter((url) => url.endsWith('?transport=tcp')) : urls };
    });
    return { ...config, iceServers, iceTransportPolicy: 'relay' };
  };
  class RelayOnly extends Native {
    constructor(config?: Config) {
      super(relayOnly(config));
      g.__relayPeerConnections.push(this);
      g.__relayIceServers.push(...(relayOnly(config)?.iceServers ?? []));
    }
    override setConfiguration(config: Config): void {
      super.setConfiguration(relayOnly(config));
    }
  }
  g.RTCPeerConnection = RelayOnly;
}

/** What getStats() says about one connected peer connection's selected candidate pair. */
interface SelectedPair {
  local: { candidateType: string; relayProtocol?: string; protocol: string };
  remote: { candidateType: string; address: string };
  bytesSent: number;
  bytesReceived: number;
}

/** The selected candidate pair of every connected peer connection of the page. */
function selectedPairs(page: Page): Promise<SelectedPair[]> {
  return page.evaluate(async () => {
    type Stat = Record<string, unknown> & { id: string; type: string };
    type Pc = { connectionState: string; getStats(): Promise<{ forEach(fn: (s: Stat) => void): void }> };
    const pcs = (globalThis as unknown as { __relayPeerConnections: Pc[] }).__relayPeerConnections;
    const pairs: unknown[] = [];
    for (const pc of pcs.filter((p) => p.connectionState === 'connected')) {
      const stats = new Map<string, Stat>();
      (await pc.getStats()).forEach((s) => stats.set(s.id, s));
      const transport = [...stats.values()].find((s) => s.type === 'transport' && s.selectedCandidatePairId);
      const pair = transport && stats.get(transport.selectedCandidatePairId as string);
      if (!pair) continue;
      const local = stats.get(pair.localCandidateId as string)!;
      const remote = stats.get(pair.remoteCandidateId as string)!;
      pairs.push({
        local: { candidateType: local.candidateType, relayProtocol: local.relayProtocol, protocol: local.protocol },
        remote: { candidateType: remote.candidateType, address: remote.address },
        bytesSent: pair.bytesSent,
        bytesReceived: pair.bytesReceived,
      });
    }
    return pairs as SelectedPair[];
  });
}

describe('TURN built in: Chromium forced to relay-only ICE talks through the service’s own coturn', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let turnPort: number;
  const contexts: { close(): Promise<void> }[] = [];

  /** The room page in a fresh context whose peer connections are relay-only. */
  const openRelayOnly = async (url: string, tcpOnly: boolean) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    await context.addInitScript(forceRelayOnly, tcpOnly);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(url);
    await page.locator('[data-testid=prejoin]').waitFor({ timeout: 15_000 });
    return { page, errors };
  };

  beforeAll(async () => {
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    const [port, tlsPort] = [await freePort(), await freePort()];
    turnPort = await freePort();
    const relay = 62_000 + Math.floor(Math.random() * 150) * 20;
    const env = roomServiceEnv({
      // The base URL names the host browsers are given for turn: (here the loopback address).
      PORT: String(port),
      SVC_BASE_URL: `http://127.0.0.1:${port}`,
      SVC_TURN: 'embedded',
      SVC_TURN_PORT: String(turnPort),
      SVC_TURN_TLS_PORT: String(tlsPort),
      SVC_TURN_MIN_PORT: String(relay),
      SVC_TURN_MAX_PORT: String(relay + 19),
    });
    [svc, browser] = await Promise.all([startService(dataDir, env), launchBrowser()]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('hands out turn: URLs on UDP and TCP with time-limited credentials signed by its own secret', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Credentials check' });
    const res = await call(svc.url, 'POST', `/rooms/v1/${meeting.code}/credentials`, undefined, { name: 'Carol' });
    expect(res.status).toBe(201);
    const secret = fs.readFileSync(path.join(dataDir, 'turn', 'static-auth-secret'), 'utf8').trim();
    expect(res.body.ice_servers).toEqual([
      {
        urls: [`turn:127.0.0.1:${turnPort}?transport=udp`, `turn:127.0.0.1:${turnPort}?transport=tcp`],
        username: expect.stringMatching(/^\d+:guest-[0-9a-f]+$/),
        credential: expect.any(String),
      },
    ]);
    const [server] = res.body.ice_servers;
    expect(server.credential).toBe(createHmac('sha1', secret).update(server.username).digest('base64'));
    const expiry = Number(server.username.split(':')[0]);
    expect(expiry).toBeGreaterThan(Date.now() / 1000);
    expect(svc.stderr()).not.toContain(secret);
  });

  it('two relay-only pages (one reaching TURN over TCP only) get each other’s audio and video, over selected pairs of type relay', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Relay-only call' });
    const alice = await openRelayOnly(roomUrl(svc.url, meeting.code, { name: 'Alice Adams' }), false);
    expect(await joinRoom(alice.page)).toBe('room');
    const bob = await openRelayOnly(roomUrl(svc.url, meeting.code, { name: 'Bob Brown' }), true);
    expect(await joinRoom(bob.page)).toBe('room');

    for (const { page } of [alice, bob]) {
      await waitForCount(page, '[data-testid=tile]', 2);
      const flowing = await waitForMediaFlowing(page, { timeoutMs: 30_000 });
      expect(flowing.audio.bytesReceived).toBeGreaterThan(0);
      expect(flowing.video.framesDecoded).toBeGreaterThan(0);
    }

    for (const [name, { page }, turnTransports] of [
      ['alice', alice, ['udp', 'tcp']],
      ['bob', bob, ['tcp']],
    ] as const) {
      // Both transports (sending and receiving) connected, each through a relay candidate towards the SFU.
      const pairs = await pollUntil(`${name}: two connected transports with a selected pair`, async () => {
        const found = await selectedPairs(page);
        return found.length === 2 && found;
      }, 15_000); // prettier-ignore
      for (const pair of pairs) {
        expect(pair.local.candidateType).toBe('relay');
        // relayProtocol: how the browser reaches the TURN server (the relay itself sends UDP to the SFU).
        expect(turnTransports).toContain(pair.local.relayProtocol);
        expect(pair.local.protocol).toBe('udp');
        expect(pair.remote).toEqual({ candidateType: 'host', address: '127.0.0.1' });
        expect(pair.bytesSent).toBeGreaterThan(0);
        expect(pair.bytesReceived).toBeGreaterThan(0);
      }
      const iceServers = await page.evaluate(() => (globalThis as unknown as { __relayIceServers: unknown[] }).__relayIceServers);
      expect(iceServers).toContainEqual(
        expect.objectContaining({ urls: expect.arrayContaining([`turn:127.0.0.1:${turnPort}?transport=tcp`]) }),
      );
    }

    await bob.page.locator('[data-testid=tile] video').first().waitFor({ state: 'visible' });
    const shot = await saveScreenshot(bob.page, 'turn-relay-only-call');
    expect(fs.statSync(shot).size).toBeGreaterThan(0);
    expect([...alice.errors, ...bob.errors]).toEqual([]);
  });

  it('stops its turnserver when the service stops', async () => {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'turn', 'turnserver.pid'), 'utf8').trim());
    expect(isProcessRunning(pid)).toBe(true);
    expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('turnserver');
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    await svc.stop();
    await pollUntil('turnserver gone', () => !isProcessRunning(pid), 10_000);
  });
});
