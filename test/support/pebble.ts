import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './browser';

/** Debian's pebble (an ACME RFC 8555 test CA) with pebble-challtestsrv as its DNS, on loopback. */
export interface Pebble {
  /** The ACME directory URL (SVC_ACME_DIRECTORY_URL). */
  directoryUrl: string;
  /** The certificate of pebble's own https listener (SVC_ACME_CA_FILE). */
  caFile: string;
  /** The root that pebble's certificates chain to (made at pebble's start), PEM. */
  issuingRoot(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts pebble, validating HTTP-01 challenges on `httpPort` of 127.0.0.1 (every name resolves there), issuing
 * certificates valid for `validitySeconds`, with no random delays and no nonce rejections.
 */
export async function startPebble(opts: { httpPort: number; validitySeconds?: number }): Promise<Pebble> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pebble-'));
  const caFile = path.join(dir, 'listener.pem');
  const keyFile = path.join(dir, 'listener.key');
  const made = spawnSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', caFile,
  ], { encoding: 'utf8' }); // prettier-ignore
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  const [listen, management, dns, dnsManagement, tlsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const configFile = path.join(dir, 'pebble.json');
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${listen}`,
      managementListenAddress: `127.0.0.1:${management}`,
      certificate: caFile,
      privateKey: keyFile,
      httpPort: opts.httpPort,
      tlsPort,
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
      ...(opts.validitySeconds ? { certificateValidityPeriod: opts.validitySeconds } : {}),
    },
  };
  fs.writeFileSync(configFile, JSON.stringify(config));
  const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ('ignore' | 'pipe')[] };
  const children: ChildProcess[] = [];
  const output: string[] = [];
  const keep = (child: ChildProcess) => {
    children.push(child);
    child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
    child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
    return child;
  };
  keep(
    spawn('pebble-challtestsrv', ['-defaultIPv4', '127.0.0.1', '-defaultIPv6', '', '-dns01', `127.0.0.1:${dns}`, '-http01', '',
      '-https01', '', '-tlsalpn01', '', '-management', `127.0.0.1:${dnsManagement}`], quiet), // prettier-ignore
  );
  keep(
    spawn('pebble', ['-config', configFile, '-dnsserver', `127.0.0.1:${dns}`], {
      ...quiet,
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
    }),
  );
  const ca = fs.readFileSync(caFile);
  const directoryUrl = `https://127.0.0.1:${listen}/dir`;
  const until = Date.now() + 20_000;
  while (
    !(await get(directoryUrl, ca).then(
      () => true,
      () => false,
    ))
  ) {
    // prettier-ignore
    if (Date.now() > until) throw new Error(`pebble did not start in 20 s: ${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    directoryUrl,
    caFile,
    issuingRoot: () => get(`https://127.0.0.1:${management}/roots/0`, ca),
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill()))),
        ),
      );
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** GETs `url` trusting only `ca`; the body as text, or a rejection. */
function get(url: string, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}
