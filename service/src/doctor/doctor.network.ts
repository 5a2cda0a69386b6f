import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config';
import type { DoctorProbes } from './doctor.probes';
import { fail, ok, warn, type CheckResult, type DoctorInput } from './doctor.result';

/** What GET /healthz of a running svc tells: its media workers' ports. */
export interface RunningService {
  port: number;
  workerPorts: number[];
}

/** Whether a host name is this machine's loopback. */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(hostname);
}

/** The svc answering on the HTTP port of this configuration, if one does. */
export async function runningService(config: Config, probes: DoctorProbes): Promise<RunningService | undefined> {
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
export async function checkHttpPorts(
  input: DoctorInput,
  probes: DoctorProbes,
  running: RunningService | undefined,
): Promise<CheckResult[]> {
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
export async function checkTurn(env: NodeJS.ProcessEnv, probes: DoctorProbes, running: RunningService | undefined): Promise<CheckResult[]> {
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
