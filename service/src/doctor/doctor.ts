import { X509Certificate, createPrivateKey } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { insecureBaseUrlWarning, type Config } from '../config';
import type { DoctorProbes } from './doctor.probes';
import { CertificateStore, tlsDir } from '../tls/certificate-store';
import { rlsWarning } from '../project/project.rls';

/** How a check came out: `fail` makes `svc doctor` exit 1. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One check's verdict: what was found and, unless ok, what to do about it. */
export interface CheckResult {
  name: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

/** The settings the checks read: the validated configuration, and the environment for what config.ts does not hold yet. */
export interface DoctorInput {
  config: Config;
  env: NodeJS.ProcessEnv;
}

const DAY_MS = 86_400_000;
/** A certificate closer than this to its end is a warning (ACME renews a month ahead). */
const CERT_WARN_DAYS = 14;
const DISK_WARN_BYTES = 2 * 1024 ** 3;
const DISK_WARN_SHARE = 0.1;
const DISK_FAIL_BYTES = 512 * 1024 ** 2;

const ok = (name: string, message: string): CheckResult => ({ name, status: 'ok', message });
const warn = (name: string, message: string, fix: string): CheckResult => ({ name, status: 'warn', message, fix });
const fail = (name: string, message: string, fix: string): CheckResult => ({ name, status: 'fail', message, fix });

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

/** What GET /healthz of a running svc tells: its media workers' ports. */
interface RunningService {
  port: number;
  workerPorts: number[];
}

function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(hostname);
}

/** The svc answering on the HTTP port of this configuration, if one does. */
async function runningService(config: Config, probes: DoctorProbes): Promise<RunningService | undefined> {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const origin = net.isIPv6(host) ? `[${host}]:${config.port}` : `${host}:${config.port}`;
  for (const scheme of ['http', 'https']) {
    const answer = await probes.get(`${scheme}://${origin}/healthz`);
    const health = answer ? parseHealth(answer.body) : undefined;
    if (health) return { port: config.port, workerPorts: health };
  }
  return undefined;
}

/** The worker ports of a svc /healthz body, or undefined when the body is not one. */
function parseHealth(body: string): number[] | undefined {
  try {
    const parsed = JSON.parse(body) as { status?: unknown; workers?: { port?: unknown }[] };
    if (typeof parsed.status !== 'string' || !Array.isArray(parsed.workers)) return undefined;
    return parsed.workers.flatMap((w) => (typeof w.port === 'number' ? [w.port] : []));
  } catch {
    return undefined;
  }
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

/** Whether a TCP port can be bound, is svc's own, or is taken. */
async function checkTcpPort(name: string, ip: string, port: number, probes: DoctorProbes, ours: boolean): Promise<CheckResult> {
  const error = await probes.bind('tcp', ip, port);
  if (error === null) return ok(name, `TCP ${ip}:${port} is free`);
  if (error === 'EADDRINUSE' && ours) return ok(name, `TCP ${ip}:${port} is served by the running svc`);
  if (error === 'EADDRINUSE')
    return fail(name, `TCP ${ip}:${port} is taken by another program`, `stop it (see ss -ltnp 'sport = :${port}') or choose another port`);
  if (error === 'EACCES') {
    return warn(
      name,
      `TCP port ${port} needs a privilege this user lacks`,
      'run svc with CAP_NET_BIND_SERVICE (deploy/svc.service has it) or pick a port above 1023',
    );
  }
  if (error === 'EADDRNOTAVAIL')
    return fail(name, `${ip} is not an address of this machine`, 'set HOST to one of its addresses, or 0.0.0.0');
  return fail(name, `TCP ${ip}:${port} cannot be bound (${error})`, 'see the error above');
}

/** PORT without TLS; SVC_HTTPS_PORT and SVC_HTTP_PORT with it. */
async function checkHttpPorts(input: DoctorInput, probes: DoctorProbes, running: RunningService | undefined): Promise<CheckResult[]> {
  const { config } = input;
  const ports: [string, number][] =
    config.tls.mode === 'off'
      ? [['HTTP port (PORT)', config.port]]
      : [
          ['SVC_HTTPS_PORT', config.tls.httpsPort],
          ['SVC_HTTP_PORT', config.tls.httpPort],
        ];
  if (config.tls.mode === 'off' && config.port === 0) return [ok('HTTP port (PORT)', 'PORT=0: a free port is picked at each start')];
  // svc answering on PORT owns the other ports of its configuration too.
  return Promise.all(ports.map(([name, port]) => checkTcpPort(name, config.host, port, probes, running !== undefined)));
}

/** SVC_RTC_MIN_PORT..SVC_RTC_MAX_PORT on UDP and TCP: each worker needs one free port of its share. */
export async function checkRtcPorts(config: Config, probes: DoctorProbes, running?: RunningService): Promise<CheckResult> {
  const name = 'RTC ports';
  const { minPort, maxPort, listenIp, workers } = config.rtc;
  if (workers === 0) return ok(name, 'SVC_RTC_WORKERS=0: no media workers, no rooms');
  const range = `${minPort}-${maxPort}`;
  const ours = new Set(running?.workerPorts ?? []);
  const taken: string[] = [];
  for (let port = minPort; port <= maxPort; port++) {
    if (ours.has(port)) continue;
    for (const protocol of ['udp', 'tcp'] as const) {
      const error = await probes.bind(protocol, listenIp, port);
      if (error === 'EADDRNOTAVAIL')
        return fail(
          name,
          `SVC_RTC_LISTEN_IP ${listenIp} is not an address of this machine`,
          'set SVC_RTC_LISTEN_IP to one of its addresses, or 0.0.0.0',
        );
      if (error === 'EACCES') return fail(name, `${protocol.toUpperCase()} port ${port} needs a privilege`, 'use RTC ports above 1023');
      if (error !== null) taken.push(`${protocol.toUpperCase()} ${port}`);
    }
  }
  const served = ours.size > 0 ? `, ${ours.size} in use by the running svc's workers` : '';
  const firewall = 'open them for UDP and TCP in the firewall';
  if (taken.length === 0) return ok(name, `${range} on ${listenIp} free on UDP and TCP${served}; ${firewall}`);
  const free = (maxPort - minPort + 1) * 2 - ours.size * 2 - taken.length;
  const list = `${taken.slice(0, 5).join(', ')}${taken.length > 5 ? `, and ${taken.length - 5} more` : ''}`;
  const fix = 'stop what holds them, or move SVC_RTC_MIN_PORT/SVC_RTC_MAX_PORT';
  if (free < workers * 2 - ours.size * 2) return fail(name, `too few free ports in ${range} for ${workers} workers: taken ${list}`, fix);
  return warn(name, `${range} on ${listenIp}: taken by other programs: ${list}${served}`, fix);
}

/** SVC_TURN as the service decides it (config.ts): external with SVC_TURN_URLS, embedded with coturn installed, else off. */
async function checkTurn(env: NodeJS.ProcessEnv, probes: DoctorProbes, running: RunningService | undefined): Promise<CheckResult[]> {
  const name = 'TURN';
  const coturn = probes.which('turnserver') !== undefined;
  const mode = env.SVC_TURN || (env.SVC_TURN_URLS ? 'external' : coturn ? 'embedded' : 'off');
  if (mode === 'off') {
    return [
      warn(
        name,
        'off: browsers on networks that block UDP or the RTC ports cannot send media',
        'install coturn (SVC_TURN=embedded), or set SVC_TURN=external with SVC_TURN_URLS and SVC_TURN_SECRET',
      ),
    ];
  }
  if (mode === 'external') {
    if (!env.SVC_TURN_URLS) return [fail(name, 'SVC_TURN=external without SVC_TURN_URLS', 'set SVC_TURN_URLS (and SVC_TURN_SECRET)')];
    if (!env.SVC_TURN_SECRET)
      return [
        warn(name, `external ${env.SVC_TURN_URLS} without SVC_TURN_SECRET`, "set SVC_TURN_SECRET to the TURN server's static-auth-secret"),
      ];
    return [ok(name, `external: ${env.SVC_TURN_URLS}`)];
  }
  if (mode !== 'embedded') return [fail(name, `SVC_TURN is "${mode}"`, 'set SVC_TURN to embedded, external or off')];
  if (!coturn) return [fail(name, "SVC_TURN=embedded but coturn's turnserver is not installed", 'apt-get install coturn')];
  const port = Number(env.SVC_TURN_PORT || 3478);
  const tlsPort = Number(env.SVC_TURN_TLS_PORT || 5349);
  const ip = env.SVC_RTC_LISTEN_IP || '0.0.0.0';
  const results: CheckResult[] = [];
  for (const [protocol, p] of [
    ['udp', port],
    ['tcp', port],
    ['tcp', tlsPort],
  ] as const) {
    const error = await probes.bind(protocol, ip, p);
    if (error === null || (error === 'EADDRINUSE' && running)) continue;
    if (error === 'EACCES')
      results.push(
        warn(
          name,
          `${protocol.toUpperCase()} port ${p} needs a privilege this user lacks`,
          'run svc with CAP_NET_BIND_SERVICE (deploy/svc.service has it)',
        ),
      );
    else
      results.push(
        fail(
          name,
          `${protocol.toUpperCase()} ${ip}:${p} is taken (${error})`,
          `stop what holds it (a system coturn? systemctl disable --now coturn) or set SVC_TURN_PORT/SVC_TURN_TLS_PORT`,
        ),
      );
  }
  return results.length > 0
    ? results
    : [
        ok(
          name,
          `embedded coturn: UDP+TCP ${port} and TCP ${tlsPort} (turns:) ${running ? 'in use by the running svc or free' : 'free'}; open them in the firewall`,
        ),
      ];
}

function isPublicIp(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
}

/** SVC_RTC_ANNOUNCED_IP: the address browsers send media to must be reachable from outside. */
export async function checkAnnouncedIp(config: Config, probes: DoctorProbes): Promise<CheckResult> {
  const name = 'announced IP';
  const { announcedIp, listenIp, workers } = config.rtc;
  if (workers === 0) return ok(name, 'no media workers');
  if (announcedIp) {
    if (net.isIP(announcedIp)) {
      return isPublicIp(announcedIp)
        ? ok(name, `SVC_RTC_ANNOUNCED_IP=${announcedIp}`)
        : warn(
            name,
            `SVC_RTC_ANNOUNCED_IP=${announcedIp} is not a public address: only this network can send media`,
            'set it to the public IP of this server (or its NAT)',
          );
    }
    try {
      return ok(name, `SVC_RTC_ANNOUNCED_IP=${announcedIp} resolves to ${(await probes.resolve(announcedIp)).join(', ')}`);
    } catch {
      return fail(name, `SVC_RTC_ANNOUNCED_IP=${announcedIp} does not resolve`, 'set it to the public IP of this server');
    }
  }
  const candidates = listenIp === '0.0.0.0' || listenIp === '::' ? probes.addresses() : [listenIp];
  const own = candidates.find((a) => net.isIPv4(a) && isPublicIp(a));
  if (own) return ok(name, `not set: the workers announce ${own}, a public address of this machine`);
  const first = candidates.find((a) => net.isIPv4(a) && !a.startsWith('127.')) ?? 'none';
  return warn(
    name,
    `not set, and this machine has no public IPv4 (the workers announce ${first}): browsers outside this network cannot send media`,
    'behind NAT (a cloud VM), set SVC_RTC_ANNOUNCED_IP to the public IP',
  );
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
