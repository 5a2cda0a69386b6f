import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

/** A HOME whose NSS database trusts `rootPem` (Chromium on Linux reads ~/.pki/nssdb), for a browser launched with it. */
export function homeTrusting(rootPem: string): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chromium-home-'));
  const db = path.join(home, '.pki/nssdb');
  fs.mkdirSync(db, { recursive: true });
  const rootFile = path.join(home, 'root.pem');
  fs.writeFileSync(rootFile, rootPem);
  for (const args of [
    ['-N', '-d', `sql:${db}`, '--empty-password'],
    ['-A', '-d', `sql:${db}`, '-t', 'C,,', '-n', 'svc test root', '-i', rootFile],
  ]) {
    const run = spawnSync('certutil', args, { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`certutil ${args.join(' ')}: ${run.stderr}`);
  }
  return home;
}

/** The certificate served on 127.0.0.1:`port` for `servername`, verified against `rootPem` (rejects otherwise). */
export function servedCertificate(port: number, servername: string, rootPem: string): Promise<tls.PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca: rootPem }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert);
    });
    socket.on('error', reject);
  });
}
