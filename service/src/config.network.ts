import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, readInteger as integer } from './shared/env';

/** Let's Encrypt's production directory, the default ACME CA. */
export const LETS_ENCRYPT_DIRECTORY_URL = 'https://acme-v02.api.letsencrypt.org/directory';

/** How the service serves HTTPS itself: not at all (a proxy in front, or a laptop), with a certificate from an ACME CA, or from files. */
export interface TlsSettings {
  mode: 'off' | 'acme' | 'files';
  /** HTTPS for the API, the pages and the sockets. */
  httpsPort: number;
  /** Plain HTTP: ACME HTTP-01 challenges, and a redirect to https for everything else. */
  httpPort: number;
  /** `files`: the certificate chain and its key (PEM), reloaded when they change. */
  certFile: string | undefined;
  keyFile: string | undefined;
  acme: { directoryUrl: string; email: string | undefined; caFile: string | undefined };
}

/** The SFU: mediasoup workers and the ports their WebRtcServers listen on. */
export interface RtcConfig {
  /** Worker processes; 0 runs the service without rooms. */
  workers: number;
  minPort: number;
  maxPort: number;
  /** Local address the media ports listen on. */
  listenIp: string;
  /** Address put in ICE candidates (the public IP behind NAT); absent: picked by the worker pool. */
  announcedIp: string | undefined;
}

/** Who provides TURN: the service's own coturn (`embedded`), a TURN server run elsewhere (`external`) or nobody. */
export type TurnMode = 'embedded' | 'external' | 'off';

/** TURN for the rooms (SVC_TURN); the ports and files matter only when `mode` is `embedded`. */
export interface TurnConfig {
  mode: TurnMode;
  /** Why TURN is off although SVC_TURN did not say so (logged once at start); undefined otherwise. */
  offReason: string | undefined;
  /** Debian's coturn `turnserver` binary found on PATH; undefined when there is none. */
  binary: string | undefined;
  /** turn: on UDP and TCP. */
  port: number;
  /** turns: (TLS over TCP), listened on only when a certificate is available. */
  tlsPort: number;
  /** The UDP ports relayed media is sent from: apart from the RTC ports, and above Linux's ephemeral ports by default. */
  minPort: number;
  maxPort: number;
}

/** Where HTTPS is served from (SVC_TLS and its files or ACME account). */
export function tlsSettings(env: NodeJS.ProcessEnv): TlsSettings {
  const mode = (env.SVC_TLS || 'off') as TlsSettings['mode'];
  if (!['off', 'acme', 'files'].includes(mode)) throw new ConfigError(`SVC_TLS must be off, acme or files, got "${mode}"`);
  const certFile = env.SVC_TLS_CERT_FILE ? path.resolve(env.SVC_TLS_CERT_FILE) : undefined;
  const keyFile = env.SVC_TLS_KEY_FILE ? path.resolve(env.SVC_TLS_KEY_FILE) : undefined;
  if (mode === 'files' && (!certFile || !keyFile)) {
    throw new ConfigError('SVC_TLS=files needs SVC_TLS_CERT_FILE (the certificate chain, PEM) and SVC_TLS_KEY_FILE (its key, PEM)');
  }
  const directoryUrl = env.SVC_ACME_DIRECTORY_URL || LETS_ENCRYPT_DIRECTORY_URL;
  if (!/^https:\/\/[^/]+/.test(directoryUrl)) throw new ConfigError(`SVC_ACME_DIRECTORY_URL must be an https URL, got "${directoryUrl}"`);
  return {
    mode,
    httpsPort: integer(env, 'SVC_HTTPS_PORT', 443, 0, 65535),
    httpPort: integer(env, 'SVC_HTTP_PORT', 80, 0, 65535),
    certFile,
    keyFile,
    acme: {
      directoryUrl,
      email: env.SVC_ACME_EMAIL || undefined,
      caFile: env.SVC_ACME_CA_FILE ? path.resolve(env.SVC_ACME_CA_FILE) : undefined,
    },
  };
}

/** The SFU's workers and ports (SVC_RTC_*). */
export function rtcConfig(env: NodeJS.ProcessEnv): RtcConfig {
  const minPort = integer(env, 'SVC_RTC_MIN_PORT', 40_000, 1, 65_535);
  const maxPort = integer(env, 'SVC_RTC_MAX_PORT', 40_099, 1, 65_535);
  const workers = integer(env, 'SVC_RTC_WORKERS', os.availableParallelism(), 0, 64);
  if (maxPort < minPort) throw new ConfigError(`SVC_RTC_MAX_PORT (${maxPort}) must not be below SVC_RTC_MIN_PORT (${minPort})`);
  if (workers > maxPort - minPort + 1) {
    throw new ConfigError(`SVC_RTC_MIN_PORT..SVC_RTC_MAX_PORT has ${maxPort - minPort + 1} ports; the ${workers} workers need one each`);
  }
  const listenIp = env.SVC_RTC_LISTEN_IP || '0.0.0.0';
  if (!isIp(listenIp)) throw new ConfigError(`SVC_RTC_LISTEN_IP must be an IP address, got "${listenIp}"`);
  const announcedIp = env.SVC_RTC_ANNOUNCED_IP || undefined;
  if (announcedIp !== undefined && !/^[A-Za-z0-9.:-]+$/.test(announcedIp)) {
    throw new ConfigError(`SVC_RTC_ANNOUNCED_IP must be an IP address or host name, got "${announcedIp}"`);
  }
  return { workers, minPort, maxPort, listenIp, announcedIp };
}

function isIp(text: string): boolean {
  return /^(\d{1,3}\.){3}\d{1,3}$/.test(text) || (text.includes(':') && /^[0-9a-fA-F:.]+$/.test(text));
}

const TURN_MODES: readonly TurnMode[] = ['embedded', 'external', 'off'];

/** TURN for the rooms (SVC_TURN, SVC_TURN_*), checked against the RTC ports. */
export function turnConfig(env: NodeJS.ProcessEnv, rtc: RtcConfig): TurnConfig {
  const raw = env.SVC_TURN || undefined;
  if (raw !== undefined && !TURN_MODES.includes(raw as TurnMode)) {
    throw new ConfigError(`SVC_TURN must be one of ${TURN_MODES.join(', ')}, got "${raw}"`);
  }
  const binary = findOnPath('turnserver', env.PATH);
  const external = Boolean(env.SVC_TURN_URLS);
  let mode = raw as TurnMode | undefined;
  let offReason: string | undefined;
  if (mode === undefined) {
    // SVC_TURN_URLS set before SVC_TURN existed means a TURN server run elsewhere.
    mode = external ? 'external' : binary ? 'embedded' : 'off';
    if (mode === 'off') {
      offReason =
        "TURN is off: coturn's turnserver is not installed (scripts/ensure-media-tools.sh installs it as root), so browsers " +
        'on networks that block UDP or the RTC ports cannot send media. Install coturn, or set SVC_TURN=external with ' +
        'SVC_TURN_URLS and SVC_TURN_SECRET, or SVC_TURN=off to silence this';
    }
  }
  if (mode === 'embedded' && !binary) {
    throw new ConfigError("SVC_TURN=embedded needs coturn's turnserver on PATH: install Debian's coturn (apt-get install coturn)");
  }
  if (mode === 'external' && !external) throw new ConfigError('SVC_TURN=external needs SVC_TURN_URLS (and SVC_TURN_SECRET)');
  if (mode !== 'external' && (external || env.SVC_TURN_SECRET)) {
    throw new ConfigError(`SVC_TURN_URLS and SVC_TURN_SECRET are for SVC_TURN=external, but SVC_TURN is ${mode}`);
  }
  const port = integer(env, 'SVC_TURN_PORT', 3478, 1, 65_535);
  const tlsPort = integer(env, 'SVC_TURN_TLS_PORT', 5349, 1, 65_535);
  const minPort = integer(env, 'SVC_TURN_MIN_PORT', 61_000, 1, 65_535);
  const maxPort = integer(env, 'SVC_TURN_MAX_PORT', 61_999, 1, 65_535);
  if (mode === 'embedded') {
    if (maxPort < minPort) throw new ConfigError(`SVC_TURN_MAX_PORT (${maxPort}) must not be below SVC_TURN_MIN_PORT (${minPort})`);
    if (minPort <= rtc.maxPort && rtc.minPort <= maxPort) {
      throw new ConfigError(
        `SVC_TURN_MIN_PORT..SVC_TURN_MAX_PORT (${minPort}-${maxPort}) must not overlap SVC_RTC_MIN_PORT..SVC_RTC_MAX_PORT (${rtc.minPort}-${rtc.maxPort})`,
      );
    }
    for (const [name, value] of [
      ['SVC_TURN_PORT', port],
      ['SVC_TURN_TLS_PORT', tlsPort],
    ] as const) {
      if ((value >= minPort && value <= maxPort) || (value >= rtc.minPort && value <= rtc.maxPort)) {
        throw new ConfigError(`${name} (${value}) must lie outside the relay ports and the RTC ports`);
      }
    }
    if (port === tlsPort) throw new ConfigError(`SVC_TURN_PORT and SVC_TURN_TLS_PORT must differ, both are ${port}`);
  }
  return { mode, offReason, binary, port, tlsPort, minPort, maxPort };
}

/** The first executable `name` in the PATH directories, or undefined. */
export function findOnPath(
  name: string,
  pathVariable = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
): string | undefined {
  for (const dir of pathVariable.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The TURN/STUN URLs of an external TURN server (SVC_TURN_URLS). */
export function turnUrls(raw: string | undefined): string[] {
  if (!raw) return [];
  const urls = raw
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  const bad = urls.find((url) => !/^(turns?|stuns?):[^\s]+$/.test(url));
  if (bad) throw new ConfigError(`SVC_TURN_URLS must be comma-separated turn:, turns: or stun: URLs, got "${bad}"`);
  return urls;
}
