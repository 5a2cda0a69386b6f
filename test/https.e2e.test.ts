import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import {
  freePort,
  joinRoom,
  launchBrowser,
  openPage,
  pollUntil,
  roomServiceEnv,
  saveScreenshot,
  waitForMediaFlowing,
} from './support/browser';
import { startPebble, type Pebble } from './support/pebble';
import { homeTrusting, servedCertificate } from './support/tls-trust';
import { startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

// HTTPS built in: with SVC_TLS=acme the service gets its certificate from an ACME CA (Debian's pebble on loopback),
// serves rooms over https on a host name (mapped to 127.0.0.1 in Chromium, pebble's root trusted), redirects http,
// and renews the certificate (pebble issues 30-second certificates here) without a restart.

const HOST_NAME = 'meet.example.test';

/** An API request over https to HOST_NAME (on 127.0.0.1), trusting `root`. */
function callHttps(
  port: number,
  root: string,
  method: string,
  pathAndQuery: string,
  key?: string,
  body?: unknown,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, servername: HOST_NAME, ca: root, method, path: pathAndQuery, headers: { host: `${HOST_NAME}:${port}` } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    if (key) req.setHeader('authorization', `Bearer ${key}`);
    if (body !== undefined) req.setHeader('content-type', 'application/json');
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('HTTPS built in, with a certificate from an ACME CA', () => {
  let dataDir: string;
  let pebble: Pebble;
  let svc: ServiceProcess;
  let browser: Browser | undefined;
  let httpsPort: number;
  let httpPort: number;
  let root: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    [httpsPort, httpPort] = await Promise.all([freePort(), freePort()]);
    pebble = await startPebble({ httpPort, validitySeconds: 30 });
    root = await pebble.issuingRoot();
    svc = await startService(
      dataDir,
      roomServiceEnv({
        SVC_TLS: 'acme',
        SVC_BASE_URL: `https://${HOST_NAME}:${httpsPort}`,
        SVC_HTTPS_PORT: String(httpsPort),
        SVC_HTTP_PORT: String(httpPort),
        SVC_ACME_DIRECTORY_URL: pebble.directoryUrl,
        SVC_ACME_CA_FILE: pebble.caFile,
        SVC_ACME_EMAIL: 'ops@example.com',
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await pebble?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves a certificate for its host name that chains to the CA, kept in the data directory readable by the service alone', async () => {
    expect(svc.stdout()).toContain(`svc listening on https://localhost:${httpsPort}`);
    const cert = await servedCertificate(httpsPort, HOST_NAME, root);
    expect(cert.subjectaltname).toBe(`DNS:${HOST_NAME}`);
    const tlsDir = path.join(dataDir, 'tls');
    expect(fs.statSync(tlsDir).mode & 0o777).toBe(0o700);
    for (const file of ['cert.pem', 'key.pem', 'acme-account.key']) expect(fs.statSync(path.join(tlsDir, file)).mode & 0o777).toBe(0o600);
    const page = await callHttps(httpsPort, root, 'GET', '/healthz');
    expect(page.status).toBe(200);
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('redirects plain http to the same path on the https base URL, whatever Host the request names', async () => {
    for (const host of [`${HOST_NAME}:${httpPort}`, 'evil.example']) {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get({ host: '127.0.0.1', port: httpPort, path: '/m/abc-defg-hij?name=Ada', headers: { host } }, resolve).on('error', reject),
      );
      res.resume();
      expect(res.statusCode).toBe(308);
      expect(res.headers.location).toBe(`https://${HOST_NAME}:${httpsPort}/m/abc-defg-hij?name=Ada`);
    }
  });

  it('lets two people meet over https on the host name, and renews the certificate under them without a restart', async () => {
    const key = unlimitedKey(dataDir);
    const created = await callHttps(httpsPort, root, 'POST', '/api/v1/public/meetings', key, { title: 'Over https' });
    expect(created.status).toBe(201);
    const { code, join_url: joinUrl } = JSON.parse(created.body) as { code: string; join_url: string };
    expect(joinUrl).toBe(`https://${HOST_NAME}:${httpsPort}/m/${code}`);
    const first = await servedCertificate(httpsPort, HOST_NAME, root);

    browser = await launchBrowser({
      extraArgs: [`--host-resolver-rules=MAP ${HOST_NAME} 127.0.0.1`],
      env: { ...(process.env as Record<string, string>), HOME: homeTrusting(root) },
    });
    const ann = await openPage(browser, `${joinUrl}?name=Ann`);
    const bob = await openPage(browser, `${joinUrl}?name=Bob`);
    expect(await ann.page.evaluate(() => (globalThis as unknown as { isSecureContext: boolean }).isSecureContext)).toBe(true);
    expect(await joinRoom(ann.page)).toBe('room');
    expect(await joinRoom(bob.page)).toBe('room');
    await Promise.all([waitForMediaFlowing(ann.page), waitForMediaFlowing(bob.page)]);
    await saveScreenshot(bob.page, 'room-over-https');

    const renewed = await pollUntil(
      'a renewed certificate',
      async () => {
        const now = await servedCertificate(httpsPort, HOST_NAME, root);
        return now.serialNumber !== first.serialNumber && now;
      },
      60_000,
      500,
    );
    expect(Date.parse(renewed.valid_to)).toBeGreaterThan(Date.parse(first.valid_to));
    expect(svc.running()).toBe(true);
    // The meeting carries on over the connections made before the renewal.
    await Promise.all([waitForMediaFlowing(ann.page), waitForMediaFlowing(bob.page)]);
    await Promise.all([ann.close(), bob.close()]);
  }, 120_000);
});
