import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A certificate chain and its private key, both PEM. */
export interface CertificatePair {
  cert: string;
  key: string;
}

/** What the first certificate of a PEM chain says about itself. */
export interface CertificateFacts {
  notBefore: number;
  notAfter: number;
  serialNumber: string;
  hostnames: string[];
}

/** Reads the leaf certificate of a PEM chain; throws when it is not a certificate. */
export function certificateFacts(certPem: string): CertificateFacts {
  const x509 = new X509Certificate(certPem);
  const hostnames = (x509.subjectAltName ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.startsWith('DNS:'))
    .map((name) => name.slice(4));
  return { notBefore: Date.parse(x509.validFrom), notAfter: Date.parse(x509.validTo), serialNumber: x509.serialNumber, hostnames };
}

/** Where the service keeps the certificate it got itself (ACME): TURN's TLS and `svc doctor` read it there too. */
export function tlsDir(dataDir: string): string {
  return path.join(dataDir, 'tls');
}

/**
 * The ACME account key, and the certificate and key the service serves, in `{dataDir}/tls` (0700), each file
 * 0600 and replaced whole (written beside, then renamed), so a crash never leaves half a certificate.
 */
export class CertificateStore {
  readonly certFile: string;
  readonly keyFile: string;
  private readonly accountKeyFile: string;

  constructor(private readonly dir: string) {
    this.certFile = path.join(dir, 'cert.pem');
    this.keyFile = path.join(dir, 'key.pem');
    this.accountKeyFile = path.join(dir, 'acme-account.key');
  }

  /** The stored certificate and key, if both are there. */
  read(): CertificatePair | undefined {
    if (!fs.existsSync(this.certFile) || !fs.existsSync(this.keyFile)) return undefined;
    return { cert: fs.readFileSync(this.certFile, 'utf8'), key: fs.readFileSync(this.keyFile, 'utf8') };
  }

  /** Stores a new certificate and key; the key first, so a certificate is never paired with an older key. */
  write(pair: CertificatePair): void {
    this.writeFile(this.keyFile, pair.key);
    this.writeFile(this.certFile, pair.cert);
  }

  /** The ACME account key, made once with `create` and kept. */
  async accountKey(create: () => Promise<Buffer>): Promise<Buffer> {
    if (fs.existsSync(this.accountKeyFile)) return fs.readFileSync(this.accountKeyFile);
    const key = await create();
    this.writeFile(this.accountKeyFile, key.toString('utf8'));
    return key;
  }

  private writeFile(file: string, content: string): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.dir, 0o700);
    const partial = `${file}.partial`;
    fs.writeFileSync(partial, content, { mode: 0o600 });
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, file);
  }
}
