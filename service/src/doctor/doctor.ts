import { X509Certificate, createPrivateKey } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { insecureBaseUrlWarning, type Config } from '../config';
import type { DoctorProbes } from './doctor.probes';
import { checkAnnouncedIp, checkHttpPorts, checkRtcPorts, checkTurn, isLoopbackHost, runningService } from './doctor.network';
import { fail, ok, warn, type CheckResult, type DoctorInput } from './doctor.result';

import { CertificateStore, tlsDir } from '../tls/certificate-store';
import { rlsWarning } from '../project/project.rls';

export { checkAnnouncedIp, checkRtcPorts } from './doctor.network';
export type { CheckResult, CheckStatus, DoctorInput } from './doctor.result';

const DAY_MS = 86_400_000;
/** A certificate closer than this to its end is a warning (ACME renews a month ahead). */
const CERT_WARN_DAYS = 14;
const DISK_WARN_BYTES = 2 * 1024 ** 3;
const DISK_WARN_SHARE = 0.1;
const DISK_FAIL_BYTES = 512 * 1024 ** 2;

/** Runs every check, in the order an operator fixes things: name and certificate, ports, media, tools, disk. */
export async function runDoctor(input: DoctorInput, probes: DoctorProbes): Promise<CheckResult[]> {
  const running = await runningService(input.config, probes);
  return [
    await checkBaseUrl(input.config, probes),
    checkTls(input, probes),
    ...(await checkHttpPorts(input, probes, running)),
    await checkRtcPorts(input.config, probes, running),
    ...(await checkTurn(input.env, probes, running)),
    await checkAnnouncedIp(input.config, probes),
    checkRecordingTools(probes),
    checkTranscription(input.config, probes),
    checkDisk(input.config, probes),
    await checkProjectTables(input.config, probes),
  ];
}

/** One line per check: status, name, what was found, and the fix. */
export function formatCheck(result: CheckResult): string {
  const label = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' }[result.status];
  return `${label}  ${result.name}: ${result.message}${result.fix ? ` -> fix: ${result.fix}` : ''}`;
}

/** SVC_BASE_URL: https, a public host name, and one that resolves. */
export async function checkBaseUrl(config: Config, probes: DoctorProbes): Promise<CheckResult> {
  const name = 'base URL';
  const url = new URL(config.baseUrl);
  if (isLoopbackHost(url.hostname)) {
    return warn(
      name,
      `${config.baseUrl} is this machine only: nobody else can open the links svc hands out`,
      'set SVC_BASE_URL to the public https URL, e.g. https://meet.example.com',
    );
  }
  const insecure = insecureBaseUrlWarning(config.baseUrl);
  if (insecure)
    return fail(
      name,
      `${config.baseUrl} is plain http: browsers give rooms no camera or microphone`,
      `set SVC_BASE_URL=https://${url.host} and SVC_TLS=acme (or put a TLS proxy in front)`,
    );
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) return ok(name, `${config.baseUrl} (an IP address: ACME certificates need a host name)`);
  try {
    const addresses = await probes.resolve(host);
    return ok(name, `${config.baseUrl} resolves to ${addresses.join(', ')}`);
  } catch (err) {
    return fail(
      name,
      `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      `create a DNS A (and AAAA) record for ${host} pointing at this server`,
    );
  }
}

/** The certificate svc serves (SVC_TLS=files or acme): present, parsable, for the base URL's host, not near its end. */
export function checkTls(input: DoctorInput, probes: DoctorProbes): CheckResult {
  const name = 'TLS certificate';
  const { config } = input;
  const { mode } = config.tls;
  const https = config.baseUrl.startsWith('https:');
  if (mode === 'off') {
    return https
      ? ok(name, 'SVC_TLS=off: the https base URL must be served by a TLS proxy in front of svc (deploy/Caddyfile)')
      : ok(name, 'SVC_TLS=off: svc serves plain http');
  }
  // loadConfig made sure that files mode names both files.
  const certFile = mode === 'files' ? config.tls.certFile! : new CertificateStore(tlsDir(config.dataDir)).certFile;
  if (!probes.exists(certFile)) {
    return mode === 'acme'
      ? warn(
          name,
          `no certificate yet in ${certFile}`,
          'start svc: it gets one from the ACME server (port 80 or 443 must reach it from the internet)',
        )
      : fail(name, `${certFile} does not exist`, 'point SVC_TLS_CERT_FILE at the certificate chain (PEM)');
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(probes.readFile(certFile));
  } catch (err) {
    return fail(name, `${certFile} is not a PEM certificate (${(err as Error).message})`, 'replace it with the PEM certificate chain');
  }
  if (mode === 'files') {
    const keyFile = config.tls.keyFile!;
    if (!probes.exists(keyFile)) return fail(name, `the key file ${keyFile} is missing`, 'set SVC_TLS_KEY_FILE to the private key (PEM)');
    try {
      if (!cert.checkPrivateKey(createPrivateKey(probes.readFile(keyFile)))) {
        return fail(name, `${keyFile} is not the key of ${certFile}`, 'use the private key the certificate was issued for');
      }
    } catch (err) {
      return fail(name, `${keyFile} is not a PEM private key (${(err as Error).message})`, 'replace it with the PEM private key');
    }
  }
  const host = new URL(config.baseUrl).hostname.replace(/^\[|\]$/g, '');
  const covers = net.isIP(host) ? cert.checkIP(host) : cert.checkHost(host);
  if (!covers)
    return fail(
      name,
      `${certFile} is not for ${host} (${cert.subjectAltName ?? cert.subject})`,
      `get a certificate for ${host}, or fix SVC_BASE_URL`,
    );
  const days = Math.floor((Date.parse(cert.validTo) - probes.now()) / DAY_MS);
  const renew = mode === 'acme' ? 'svc renews it while running: check its log for ACME errors' : 'renew it and restart svc';
  if (days < 0) return fail(name, `${certFile} for ${host} expired on ${cert.validTo}`, renew);
  if (Date.parse(cert.validFrom) > probes.now())
    return fail(name, `${certFile} is valid only from ${cert.validFrom}`, 'check the clock of this machine');
  if (days < CERT_WARN_DAYS) return warn(name, `${certFile} for ${host} expires in ${days} days (${cert.validTo})`, renew);
  return ok(name, `${certFile} for ${host}, valid for ${days} more days (until ${cert.validTo})`);
}

/** ffmpeg and ffprobe, which recording needs. */
export function checkRecordingTools(probes: DoctorProbes): CheckResult {
  const name = 'ffmpeg';
  const reason = probes.recordingUnavailable();
  if (reason === null) return ok(name, 'ffmpeg and ffprobe run: recording works');
  return warn(name, reason, 'apt-get install ffmpeg (or run scripts/ensure-media-tools.sh as root)');
}

/** pocketsphinx and its model, unless an SVC_STT_URL endpoint transcribes. */
export function checkTranscription(config: Config, probes: DoctorProbes): CheckResult {
  const name = 'transcription';
  const { stt, pocketsphinxModelDir: model } = config.transcription;
  if (stt) return ok(name, `through ${stt.url} (${stt.model})`);
  if (probes.which('pocketsphinx_continuous') === undefined) {
    return warn(
      name,
      'pocketsphinx_continuous is not installed: recordings get no transcript',
      'apt-get install pocketsphinx pocketsphinx-en-us, or set SVC_STT_URL',
    );
  }
  const missing = ['en-us', 'en-us.lm.bin', 'cmudict-en-us.dict'].filter((f) => !probes.exists(path.join(model, f)));
  if (missing.length > 0)
    return warn(
      name,
      `pocketsphinx's model lacks ${missing.join(', ')} in ${model}`,
      'apt-get install pocketsphinx-en-us, or set SVC_POCKETSPHINX_MODEL_DIR',
    );
  return ok(name, `pocketsphinx with ${model}`);
}

/** Free space where the data directory lives. */
export function checkDisk(config: Config, probes: DoctorProbes): CheckResult {
  const name = 'disk';
  const { freeBytes, totalBytes } = probes.disk(config.dataDir);
  const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  const text = `${gb(freeBytes)} free of ${gb(totalBytes)} for ${config.dataDir}`;
  const fix = 'free space, or move SVC_DATA_DIR (recordings are kept there) to a larger disk';
  if (freeBytes < DISK_FAIL_BYTES) return fail(name, text, fix);
  if (freeBytes < DISK_WARN_BYTES || freeBytes < totalBytes * DISK_WARN_SHARE) return warn(name, text, fix);
  return ok(name, text);
}

/** Public tables of the project database without row-level security: the anon key, public by design, reads and writes them. */
export async function checkProjectTables(config: Config, probes: DoctorProbes): Promise<CheckResult> {
  const name = 'project tables';
  let tables;
  try {
    tables = await probes.projectTables(config);
  } catch (err) {
    return warn(
      name,
      `could not read the project database (${err instanceof Error ? err.message : String(err)})`,
      config.project.databaseUrl
        ? 'check SVC_PROJECT_DATABASE_URL and that the server runs'
        : 'run svc doctor again once the service is up',
    );
  }
  if (!tables) return ok(name, 'no project database yet');
  const warning = rlsWarning(tables);
  if (warning)
    return warn(name, warning, 'click "Enable RLS" on the dashboard\'s Project page, or run that statement with svc project sql');
  return ok(name, `${tables.length} public ${tables.length === 1 ? 'table' : 'tables'}, all with row-level security on`);
}
