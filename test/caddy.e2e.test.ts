import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import {
  createMeeting,
  freePort,
  joinRoom,
  launchBrowser,
  openPage,
  pollUntil,
  roomServiceEnv,
  saveScreenshot,
  waitForMediaFlowing,
} from './support/browser';
import { startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';
import { homeTrusting, servedCertificate } from './support/tls-trust';

// deploy/Caddyfile as an operator uses it: Debian's caddy in front of svc (on loopback, SVC_TRUST_PROXY), with
// caddy's own CA (`local_certs`, the test's stand-in for Let's Encrypt) trusted by Chromium. Two people meet
// through it at https://meet.example.test.

const HOST_NAME = 'meet.example.test';
const DEPLOY_CADDYFILE = path.resolve(__dirname, '../deploy/Caddyfile');

describe('svc behind caddy with deploy/Caddyfile', () => {
  let dataDir: string;
  let caddyDir: string;
  let svc: ServiceProcess;
  let caddy: ChildProcess;
  let caddyLog = '';
  let browser: Browser | undefined;
  let httpsPort: number;

  beforeAll(async () => {
    dataDir = tempDataDir();
    caddyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-caddy-'));
    const [svcPort, httpPort] = await Promise.all([freePort(), freePort()]);
    httpsPort = await freePort();
    svc = await startService(
      dataDir,
      roomServiceEnv({ PORT: String(svcPort), SVC_BASE_URL: `https://${HOST_NAME}:${httpsPort}`, SVC_TRUST_PROXY: 'true' }),
    );
    // The operator's file, imported as is, under the test's global options (ports, a local CA, no admin API).
    const caddyfile = path.join(caddyDir, 'Caddyfile');
    fs.writeFileSync(
      caddyfile,
      `{\n\tadmin off\n\thttp_port ${httpPort}\n\thttps_port ${httpsPort}\n\tlocal_certs\n\tskip_install_trust\n` +
        `\tstorage file_system ${path.join(caddyDir, 'data')}\n}\n\nimport ${DEPLOY_CADDYFILE}\n`,
    );
    caddy = spawn('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
      env: { ...process.env, HOME: caddyDir, SVC_DOMAIN: `${HOST_NAME}:${httpsPort}`, SVC_UPSTREAM: `127.0.0.1:${svcPort}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    caddy.stderr!.on('data', (d: Buffer) => (caddyLog += d.toString()));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (caddy && caddy.exitCode === null) await new Promise((resolve) => (caddy.once('exit', resolve), caddy.kill()));
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(caddyDir, { recursive: true, force: true });
  });

  it('serves svc over https with WebSockets: two people meet through caddy', async () => {
    const rootFile = path.join(caddyDir, 'data/pki/authorities/local/root.crt');
    const root = await pollUntil(
      () => `caddy's local CA and certificate (caddy says: ${caddyLog.slice(-500)})`,
      async () =>
        fs.existsSync(rootFile) &&
        (await servedCertificate(httpsPort, HOST_NAME, fs.readFileSync(rootFile, 'utf8'))) &&
        fs.readFileSync(rootFile, 'utf8'),
      30_000,
      200,
    );
    const meeting = await createMeeting(svc.url, unlimitedKey(dataDir), { title: 'Behind caddy' });
    expect(meeting.join_url).toBe(`https://${HOST_NAME}:${httpsPort}/m/${meeting.code}`);

    browser = await launchBrowser({
      extraArgs: [`--host-resolver-rules=MAP ${HOST_NAME} 127.0.0.1`],
      env: { ...(process.env as Record<string, string>), HOME: homeTrusting(root) },
    });
    const ann = await openPage(browser, `${meeting.join_url}?name=Ann`);
    const bob = await openPage(browser, `${meeting.join_url}?name=Bob`);
    expect(await joinRoom(ann.page)).toBe('room');
    expect(await joinRoom(bob.page)).toBe('room');
    await Promise.all([waitForMediaFlowing(ann.page), waitForMediaFlowing(bob.page)]);
    // Behind caddy, svc hands out wss:// sockets on the public host name (SVC_TRUST_PROXY takes X-Forwarded-Proto).
    const credential = await ann.page.evaluate(async (code) => {
      const res = await fetch(`/rooms/v1/${code}/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Probe' }),
      });
      return (await res.json()) as { socket_url: string };
    }, meeting.code);
    expect(credential.socket_url).toMatch(new RegExp(`^wss://${HOST_NAME}:${httpsPort}/rooms/v1/socket\\?credential=`));
    await saveScreenshot(ann.page, 'room-behind-caddy');
    await Promise.all([ann.close(), bob.close()]);
  }, 120_000);
});
