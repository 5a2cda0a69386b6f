import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../shared/clock';
import { createLogger } from '../shared/logger';
import { certificateFacts, CertificateStore, type CertificatePair } from './certificate-store';
import { CertificateFiles, CertificateWorker, renewalDueAt } from './certificate.worker';

const DAY = 24 * 60 * 60 * 1000;
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tls-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate for `hostname` valid for `days`, made by openssl. */
function selfSigned(hostname: string, days: number): CertificatePair {
  const cert = path.join(dir, `made-${Math.random()}.pem`);
  const key = `${cert}.key`;
  const made = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', String(days), '-subj', `/CN=${hostname}`,
      '-addext', `subjectAltName=DNS:${hostname}`, '-keyout', key, '-out', cert], // prettier-ignore
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(made.stderr);
  return { cert: fs.readFileSync(cert, 'utf8'), key: fs.readFileSync(key, 'utf8') };
}

describe('renewalDueAt', () => {
  it('is 30 days before expiry, or a third of the lifetime for shorter certificates', () => {
    const ninety = selfSigned('meet.example.com', 90);
    const { notAfter } = certificateFacts(ninety.cert);
    expect(renewalDueAt(ninety.cert)).toBe(notAfter - 30 * DAY);
    const six = selfSigned('meet.example.com', 6);
    expect(renewalDueAt(six.cert)).toBe(certificateFacts(six.cert).notAfter - 2 * DAY);
  });
});

describe('the certificate worker with certificate files', () => {
  it('installs the files, installs them again only when they change, and keeps the last good one when they break', async () => {
    const certFile = path.join(dir, 'cert.pem');
    const keyFile = path.join(dir, 'key.pem');
    const clock = new ManualClock();
    const installed: CertificatePair[] = [];
    const worker = new CertificateWorker(
      new CertificateFiles(certFile, keyFile),
      (pair) => installed.push(pair),
      clock,
      createLogger('silent'),
    );

    // Files not there yet: retried later, nothing installed.
    expect(await worker.runOnce()).toBe(clock.now() + 30_000);
    expect(installed).toHaveLength(0);

    const first = selfSigned('meet.example.com', 90);
    fs.writeFileSync(certFile, first.cert);
    fs.writeFileSync(keyFile, first.key);
    expect(await worker.runOnce()).toBe(clock.now() + 10_000);
    expect(installed).toEqual([first]);
    clock.advance(10_000);
    await worker.runOnce();
    expect(installed).toHaveLength(1);

    const second = selfSigned('meet.example.com', 90);
    fs.writeFileSync(certFile, second.cert);
    fs.writeFileSync(keyFile, second.key);
    await worker.runOnce();
    expect(installed).toEqual([first, second]);

    fs.writeFileSync(certFile, 'not a certificate');
    expect(await worker.runOnce()).toBe(clock.now() + 30_000);
    expect(await worker.runOnce()).toBe(clock.now() + 60_000);
    expect(installed).toHaveLength(2);
  });
});

describe('the certificate store', () => {
  it('keeps the certificate, its key and the account key in a 0700 folder, each file 0600', async () => {
    const tlsDir = path.join(dir, 'tls');
    const store = new CertificateStore(tlsDir);
    expect(store.read()).toBeUndefined();
    const pair = selfSigned('meet.example.com', 90);
    store.write(pair);
    expect(store.read()).toEqual(pair);
    const made = await store.accountKey(async () => Buffer.from('account key'));
    expect(await store.accountKey(async () => Buffer.from('another'))).toEqual(made);
    expect(fs.statSync(tlsDir).mode & 0o777).toBe(0o700);
    for (const file of fs.readdirSync(tlsDir)) expect(fs.statSync(path.join(tlsDir, file)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(tlsDir).sort()).toEqual(['acme-account.key', 'cert.pem', 'key.pem']);
  });
});
