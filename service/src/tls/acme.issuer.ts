import fs from 'node:fs';
import https from 'node:https';
import acme from 'acme-client';
import type { TlsSettings } from '../config';
import type { Logger } from '../shared/logger';
import type { CertificatePair, CertificateStore } from './certificate-store';

/** Gets certificates from an ACME CA (Let's Encrypt by default), answering its HTTP-01 challenges on the service's http port. */
export class AcmeIssuer {
  private readonly challenges = new Map<string, string>();

  constructor(
    private readonly settings: TlsSettings['acme'],
    private readonly store: CertificateStore,
    private readonly logger: Logger,
  ) {
    // A private ACME server (pebble in tests, a company CA) is trusted for this client's requests only.
    if (settings.caFile) acme.axios.defaults.httpsAgent = new https.Agent({ ca: fs.readFileSync(settings.caFile) });
  }

  /** The key authorization that answers a challenge token while an order is under way; undefined otherwise. */
  challengeResponse(token: string): string | undefined {
    return this.challenges.get(token);
  }

  /** Orders a certificate for `hostname` with a new key. */
  async issue(hostname: string): Promise<CertificatePair> {
    const accountKey = await this.store.accountKey(() => acme.crypto.createPrivateKey());
    const client = new acme.Client({ directoryUrl: this.settings.directoryUrl, accountKey });
    const [key, csr] = await acme.crypto.createCsr({ commonName: hostname, altNames: [hostname] });
    this.logger.info('ordering a certificate', { hostname, directory: this.settings.directoryUrl });
    const cert = await client.auto({
      csr,
      email: this.settings.email,
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // The service answers its own challenges, so a pre-check over DNS (which may not point here yet from inside) adds nothing.
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
        this.challenges.set(challenge.token, keyAuthorization);
      },
      challengeRemoveFn: async (_authz, challenge) => {
        this.challenges.delete(challenge.token);
      },
    });
    return { cert, key: key.toString('utf8') };
  }
}
