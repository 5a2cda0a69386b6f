import fs from 'node:fs';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import type { AcmeIssuer } from './acme.issuer';
import { certificateFacts, type CertificatePair, type CertificateStore } from './certificate-store';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A certificate is renewed 30 days before it expires, or with a third of its lifetime left when it lives shorter than 90 days. */
const RENEW_BEFORE_MS = 30 * DAY_MS;
/** The longest a worker sleeps between two looks, whatever the certificate says. */
const MAX_SLEEP_MS = 12 * 60 * 60 * 1000;
/** How often certificate files are looked at for a replacement. */
const FILES_POLL_MS = 10_000;
/** Retries after a failed order or a bad file: 30 s, doubling up to an hour (Let's Encrypt limits failed validations). */
const RETRY_MIN_MS = 30_000;
const RETRY_MAX_MS = 60 * 60 * 1000;

/** Where the served certificate comes from. */
export interface CertificateSource {
  /** The certificate to serve now, obtained or renewed when needed. */
  current(now: number): Promise<CertificatePair>;
  /** When to look again (epoch ms), given the certificate served now. */
  nextCheck(pair: CertificatePair, now: number): number;
}

/** The epoch ms at which a certificate is due for renewal. */
export function renewalDueAt(certPem: string): number {
  const { notBefore, notAfter } = certificateFacts(certPem);
  return notAfter - Math.min(RENEW_BEFORE_MS, (notAfter - notBefore) / 3);
}

/** Certificates from an ACME CA for one host name, kept in the data directory and renewed when due. */
export class AcmeCertificates implements CertificateSource {
  constructor(
    private readonly hostname: string,
    private readonly issuer: AcmeIssuer,
    private readonly store: CertificateStore,
  ) {}

  async current(now: number): Promise<CertificatePair> {
    const stored = this.store.read();
    if (stored && renewalDueAt(stored.cert) > now && certificateFacts(stored.cert).hostnames.includes(this.hostname)) return stored;
    const pair = await this.issuer.issue(this.hostname);
    this.store.write(pair);
    return pair;
  }

  nextCheck(pair: CertificatePair, now: number): number {
    return Math.min(renewalDueAt(pair.cert), now + MAX_SLEEP_MS);
  }
}

/** The operator's own certificate files, read again when they change (a renewal by another tool). */
export class CertificateFiles implements CertificateSource {
  constructor(
    private readonly certFile: string,
    private readonly keyFile: string,
  ) {}

  async current(): Promise<CertificatePair> {
    const pair = { cert: fs.readFileSync(this.certFile, 'utf8'), key: fs.readFileSync(this.keyFile, 'utf8') };
    certificateFacts(pair.cert);
    return pair;
  }

  nextCheck(_pair: CertificatePair, now: number): number {
    return now + FILES_POLL_MS;
  }
}

/**
 * Keeps the served certificate current: each run asks its source for the certificate to serve and installs
 * it when it changed (no restart: the TLS server swaps its context), then sleeps until the next check is due.
 * A failure keeps the certificate served so far and is retried after a growing back-off.
 */
export class CertificateWorker {
  private installed: CertificatePair | undefined;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly source: CertificateSource,
    private readonly install: (pair: CertificatePair) => void,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** One look: installs a changed certificate; resolves with the epoch ms of the next look. */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    try {
      const pair = await this.source.current(now);
      if (pair.cert !== this.installed?.cert || pair.key !== this.installed.key) {
        this.install(pair);
        this.installed = pair;
        const facts = certificateFacts(pair.cert);
        this.logger.info('certificate installed', {
          hostnames: facts.hostnames,
          serial: facts.serialNumber,
          not_after: new Date(facts.notAfter).toISOString(),
        });
      }
      this.failures = 0;
      return Math.max(this.source.nextCheck(pair, now), now + 1_000);
    } catch (error) {
      const retryMs = Math.min(RETRY_MIN_MS * 2 ** this.failures++, RETRY_MAX_MS);
      this.logger.error('could not get a certificate; the one served so far stays', {
        error: error instanceof Error ? error.message : String(error),
        retry_in_s: retryMs / 1000,
      });
      return now + retryMs;
    }
  }

  /** Runs until `stop`: the first run at once, then each when due. */
  start(): void {
    this.running = true;
    const loop = async (): Promise<void> => {
      const next = await this.runOnce();
      if (!this.running) return;
      this.timer = setTimeout(() => void loop(), Math.min(Math.max(next - this.clock.now(), 0), MAX_SLEEP_MS));
      this.timer.unref();
    };
    void loop();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }
}
