import http from 'node:http';
import https from 'node:https';
import type { Config } from '../config';
import { listenOn, serverOptions, SERVER_LIMITS } from './server';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import type { AcmeIssuer } from '../tls/acme.issuer';
import { CertificateStore, tlsDir, type CertificatePair } from '../tls/certificate-store';
import { AcmeCertificates, CertificateFiles, CertificateWorker } from '../tls/certificate.worker';

/** The path an ACME CA fetches an HTTP-01 challenge from (RFC 8555 section 8.3). */
const ACME_CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

/** Browsers remember for a year to use https only (no includeSubDomains: other hosts of the domain are not ours to decide). */
const HSTS = 'max-age=31536000';

/** The service over HTTPS: the TLS server, its plain HTTP companion (ACME challenges and redirects), and how to stop both. */
export interface HttpsServing {
  server: https.Server;
  redirector: http.Server;
  /** Stops renewing and closes the plain HTTP companion (the TLS server is closed by its owner, like a plain one). */
  stopCompanions(): Promise<void>;
}

/**
 * Serves `app` over HTTPS on SVC_HTTPS_PORT with a certificate from ACME or from files, kept current by a
 * certificate worker (renewals are swapped in without a restart), and plain HTTP on SVC_HTTP_PORT for ACME
 * HTTP-01 challenges and a redirect to https. Resolves once both listen, which is after the first certificate.
 */
export async function serveHttps(app: http.RequestListener, config: Config, clock: Clock, logger: Logger): Promise<HttpsServing> {
  const { tls, baseUrl, host } = config;
  const store = new CertificateStore(tlsDir(config.dataDir));
  // acme-client and its crypto libraries (~30 MB) are loaded only when the service gets its own certificates.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require: the build is CommonJS
  const acme = tls.mode === 'acme' ? (require('../tls/acme.issuer') as typeof import('../tls/acme.issuer')) : undefined;
  const issuer = acme ? new acme.AcmeIssuer(tls.acme, store, logger) : undefined;
  const source = issuer
    ? new AcmeCertificates(new URL(baseUrl).hostname, issuer, store)
    : new CertificateFiles(tls.certFile!, tls.keyFile!);
  const redirector = await listenOn(http.createServer(serverOptions(), challengeOrRedirect(baseUrl, issuer)), tls.httpPort, host);

  let server: https.Server | undefined;
  let created: (server: https.Server) => void = () => undefined;
  const firstCertificate = new Promise<https.Server>((resolve) => (created = resolve));
  const install = (pair: CertificatePair) => {
    if (server) return server.setSecureContext(pair);
    server = https.createServer({ ...serverOptions(), ...pair }, (req, res) => {
      res.setHeader('Strict-Transport-Security', HSTS);
      app(req, res);
    });
    created(server);
  };
  const worker = new CertificateWorker(source, install, clock, logger);
  worker.start();
  return {
    server: await listenOn(await firstCertificate, tls.httpsPort, host, SERVER_LIMITS),
    redirector,
    stopCompanions: () => {
      worker.stop();
      return new Promise((resolve) => redirector.close(() => resolve()));
    },
  };
}

/** The plain HTTP port: answers ACME challenges under way, and sends everything else to the same path on the https base URL. */
function challengeOrRedirect(baseUrl: string, issuer: AcmeIssuer | undefined): http.RequestListener {
  const origin = new URL(baseUrl).origin;
  return (req, res) => {
    const target = req.url ?? '/';
    if (target.startsWith(ACME_CHALLENGE_PREFIX)) {
      const answer = issuer?.challengeResponse(target.slice(ACME_CHALLENGE_PREFIX.length));
      res.writeHead(answer ? 200 : 404, { 'Content-Type': 'text/plain' }).end(answer ?? 'Not found');
      return;
    }
    // Only the path is kept: the host is the base URL's, never the request's (no open redirect through Host).
    const location = target.startsWith('/') && !target.startsWith('//') ? `${origin}${target}` : `${origin}/`;
    res.writeHead(308, { Location: location, 'Content-Type': 'text/plain' }).end(`Moved to ${location}`);
  };
}
