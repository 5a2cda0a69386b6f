import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlmSettings } from './llm/llm.client';
import type { SttSettings } from './transcripts/openai-stt';
import type { RoomSettings } from './rooms/rooms.service';

/** Every setting of the service, read once from the environment and validated. */
export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  databasePath: string;
  logLevel: LogLevel;
  rateLimit: RateLimitSettings;
  allowInsecureWebhooks: boolean;
  trustProxy: boolean;
  /** Base64 master key for secrets stored encrypted; absent: a key file in the data directory. */
  masterKey: string | undefined;
  webhooks: WebhookSettings;
  /** Base URL of Slack's Web API (a proxy or, in tests, a local fake). */
  slackApiUrl: string;
  /** The operator's Slack app, for "Add to Slack" (OAuth v2); absent: only pasted bot tokens. */
  slackOAuth: SlackOAuthConfig | undefined;
  project: ProjectConfig;
  rtc: RtcConfig;
  turn: TurnConfig;
  rooms: RoomSettings;
  /** How long a recording's signed download URL works. */
  recordingUrlTtlSeconds: number;
  dashboard: DashboardConfig;
  /** The LLM endpoint ask_meetings answers with; absent: answers are extractive (quoted transcript sentences). */
  llm: LlmSettings | undefined;
  transcription: TranscriptionConfig;
  tls: TlsSettings;
}

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

/** The Slack app whose OAuth install the dashboard offers. */
export interface SlackOAuthConfig {
  clientId: string;
  clientSecret: string;
  /** Slack's consent page the browser is sent to (a local fake in tests). */
  authorizeUrl: string;
}

/** Speech-to-text and the durable jobs that run it. */
export interface TranscriptionConfig {
  /** An OpenAI-compatible `/audio/transcriptions` endpoint; absent: pocketsphinx, offline. */
  stt: SttSettings | undefined;
  /** Pocketsphinx's model directory (holding en-us/, en-us.lm.bin, cmudict-en-us.dict). */
  pocketsphinxModelDir: string;
  /** Background jobs (transcribe, summarize) run at once; speech-to-text takes a core each. */
  jobConcurrency: number;
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

/** The web dashboard served at the base URL. */
export interface DashboardConfig {
  /** How long a dashboard session lasts. */
  sessionTtlMs: number;
  /** The built dashboard (web/dashboard/dist); absent: the dashboard's pages answer 503. */
  dir: string;
}

/** The project database: embedded in `{dataDir}/project` unless `databaseUrl` names a PostgreSQL server. */
export interface ProjectConfig {
  databaseUrl: string | undefined;
  /** Signs the anon, service_role and user JWTs; absent: a secret generated at first start in the data directory. */
  jwtSecret: string | undefined;
  statementTimeoutMs: number;
}

/** How webhook deliveries are sent. */
export interface WebhookSettings {
  /** Attempts in flight at once, across all endpoints. */
  concurrency: number;
  /** Attempts in flight at once to one endpoint, so one slow endpoint cannot take the whole pool. */
  perEndpointConcurrency: number;
  /** Attempts in flight at once for one organization's destinations, so no organization can take the whole pool. */
  perOrganizationConcurrency: number;
  /** Webhook endpoints one organization may have. */
  endpointsPerOrganization: number;
  timeoutMs: number;
  /** How long an attempt waits for the TCP connection before giving up; at most `timeoutMs`. */
  connectTimeoutMs: number;
}

/** Per-key request budget; a key may carry its own, higher one. */
export interface RateLimitSettings {
  perSecond: number;
  perMinute: number;
}

/** Log verbosity, most to least. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * Why rooms cannot work at `baseUrl`, or undefined: browsers give camera, microphone and WebRTC only to pages
 * served over https or from a loopback host, so http on any other host name gives every guest an error.
 */
export function insecureBaseUrlWarning(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  const loopback = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);
  if (url.protocol === 'https:' || loopback) return undefined;
  return (
    `SVC_BASE_URL ${baseUrl} is plain http on a host that is not loopback: browsers open the camera, the microphone ` +
    `and calls only on https pages, so nobody can join a room there. Serve svc over https and set SVC_BASE_URL=https://${url.host}`
  );
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {}

/** Reads and validates the configuration from `env` (process.env by default). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const dataDir = path.resolve(env.SVC_DATA_DIR ?? './data');
  const tls = tlsSettings(env);
  const defaultBaseUrl =
    tls.mode === 'off' ? `http://localhost:${port}` : `https://localhost${tls.httpsPort === 443 ? '' : `:${tls.httpsPort}`}`;
  const baseUrl = (env.SVC_BASE_URL ?? defaultBaseUrl).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new ConfigError(`SVC_BASE_URL must be an http(s) URL, got "${baseUrl}"`);
  if (tls.mode !== 'off' && !baseUrl.startsWith('https://')) {
    throw new ConfigError(`SVC_TLS=${tls.mode} serves https: SVC_BASE_URL must be https://your.host.name, got "${baseUrl}"`);
  }
  if (tls.mode === 'acme' && (env.SVC_BASE_URL === undefined || /^\d|^\[|^localhost$/.test(new URL(baseUrl).hostname))) {
    throw new ConfigError('SVC_TLS=acme gets a certificate for a public host name: set SVC_BASE_URL=https://meet.example.com');
  }
  const logLevel = (env.SVC_LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`SVC_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const rtc = rtcConfig(env);
  const turn = turnConfig(env, rtc);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    baseUrl,
    dataDir,
    databasePath: path.join(dataDir, 'svc.sqlite'),
    logLevel,
    rateLimit: {
      perSecond: integer(env, 'SVC_RATE_LIMIT_PER_SECOND', 20, 1, 1_000_000),
      perMinute: integer(env, 'SVC_RATE_LIMIT_PER_MINUTE', 120, 1, 60_000_000),
    },
    allowInsecureWebhooks: boolean(env, 'SVC_ALLOW_INSECURE_WEBHOOKS', false),
    trustProxy: boolean(env, 'SVC_TRUST_PROXY', false),
    masterKey: env.SVC_MASTER_KEY || undefined,
    webhooks: webhookSettings(env),
    slackApiUrl: env.SVC_SLACK_API_URL || 'https://slack.com/api/',
    slackOAuth: slackOAuthConfig(env),
    project: {
      databaseUrl: projectDatabaseUrl(env.SVC_PROJECT_DATABASE_URL),
      jwtSecret: projectJwtSecret(env.SVC_PROJECT_JWT_SECRET),
      statementTimeoutMs: integer(env, 'SVC_PROJECT_STATEMENT_TIMEOUT_MS', 8_000, 100, 600_000),
    },
    rtc,
    turn,
    recordingUrlTtlSeconds: integer(env, 'SVC_RECORDING_URL_TTL_SECONDS', 24 * 3600, 60, 30 * 24 * 3600),
    rooms: {
      emptyGraceSeconds: integer(env, 'SVC_ROOM_EMPTY_GRACE_SECONDS', 300, 0, 7 * 24 * 3600),
      turnUrls: turnUrls(env.SVC_TURN_URLS),
      turnSecret: env.SVC_TURN_SECRET || undefined,
      pageRateLimit: {
        perSecond: integer(env, 'SVC_ROOM_RATE_LIMIT_PER_SECOND', 20, 1, 1_000_000),
        perMinute: integer(env, 'SVC_ROOM_RATE_LIMIT_PER_MINUTE', 600, 1, 60_000_000),
      },
    },
    dashboard: {
      sessionTtlMs: integer(env, 'SVC_DASHBOARD_SESSION_TTL_SECONDS', 7 * 24 * 3600, 1, 365 * 24 * 3600) * 1000,
      dir: path.resolve(env.SVC_DASHBOARD_DIR || path.join(__dirname, '../../web/dashboard/dist')),
    },
    llm: llmSettings(env),
    transcription: {
      stt: sttSettings(env),
      pocketsphinxModelDir: path.resolve(env.SVC_POCKETSPHINX_MODEL_DIR || '/usr/share/pocketsphinx/model/en-us'),
      jobConcurrency: integer(env, 'SVC_JOB_CONCURRENCY', 1, 1, 64),
    },
    tls,
  };
}

function tlsSettings(env: NodeJS.ProcessEnv): TlsSettings {
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

function llmSettings(env: NodeJS.ProcessEnv): LlmSettings | undefined {
  const url = (env.SVC_LLM_URL || '').replace(/\/+$/, '');
  if (!url) return undefined;
  if (!/^https?:\/\/[^/]+/.test(url)) throw new ConfigError(`SVC_LLM_URL must be an http(s) URL, got "${url}"`);
  const model = env.SVC_LLM_MODEL;
  if (!model) throw new ConfigError('SVC_LLM_MODEL must name the model to use with SVC_LLM_URL');
  return {
    url,
    apiKey: env.SVC_LLM_API_KEY || undefined,
    model,
    timeoutMs: integer(env, 'SVC_LLM_TIMEOUT_MS', 30_000, 1_000, 600_000),
  };
}

function sttSettings(env: NodeJS.ProcessEnv): SttSettings | undefined {
  const url = (env.SVC_STT_URL || '').replace(/\/+$/, '');
  if (!url) return undefined;
  if (!/^https?:\/\/[^/]+/.test(url)) throw new ConfigError(`SVC_STT_URL must be an http(s) URL, got "${url}"`);
  return {
    url,
    apiKey: env.SVC_STT_API_KEY || undefined,
    model: env.SVC_STT_MODEL || 'whisper-1',
    timeoutMs: integer(env, 'SVC_STT_TIMEOUT_MS', 600_000, 1_000, 3_600_000),
  };
}

function rtcConfig(env: NodeJS.ProcessEnv): RtcConfig {
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

function turnConfig(env: NodeJS.ProcessEnv, rtc: RtcConfig): TurnConfig {
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

function turnUrls(raw: string | undefined): string[] {
  if (!raw) return [];
  const urls = raw
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  const bad = urls.find((url) => !/^(turns?|stuns?):[^\s]+$/.test(url));
  if (bad) throw new ConfigError(`SVC_TURN_URLS must be comma-separated turn:, turns: or stun: URLs, got "${bad}"`);
  return urls;
}

function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const concurrency = integer(env, 'SVC_WEBHOOK_CONCURRENCY', 64, 1, 1024);
  const perEndpointConcurrency = integer(env, 'SVC_WEBHOOK_ENDPOINT_CONCURRENCY', 8, 1, 1024);
  // All but one endpoint's worth of the pool, so another organization always finds room, yet at least two
  // endpoints' worth, so one stuck endpoint cannot stall its own organization.
  const organizationShare = Math.min(concurrency, Math.max(2 * perEndpointConcurrency, concurrency - perEndpointConcurrency));
  return {
    concurrency,
    perEndpointConcurrency,
    perOrganizationConcurrency: integer(env, 'SVC_WEBHOOK_ORGANIZATION_CONCURRENCY', organizationShare, 1, 1024),
    endpointsPerOrganization: integer(env, 'SVC_WEBHOOK_ENDPOINTS_PER_ORGANIZATION', 100, 1, 100_000),
    timeoutMs: integer(env, 'SVC_WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000),
    connectTimeoutMs: integer(env, 'SVC_WEBHOOK_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
  };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function projectDatabaseUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new ConfigError('SVC_PROJECT_DATABASE_URL must be a postgres:// URL');
  return raw;
}

function projectJwtSecret(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (raw.length < 32) throw new ConfigError('SVC_PROJECT_JWT_SECRET must be at least 32 characters');
  return raw;
}

function slackOAuthConfig(env: NodeJS.ProcessEnv): SlackOAuthConfig | undefined {
  const clientId = env.SVC_SLACK_CLIENT_ID || undefined;
  const clientSecret = env.SVC_SLACK_CLIENT_SECRET || undefined;
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) throw new ConfigError('SVC_SLACK_CLIENT_ID and SVC_SLACK_CLIENT_SECRET go together: set both or neither');
  const authorizeUrl = env.SVC_SLACK_AUTHORIZE_URL || 'https://slack.com/oauth/v2/authorize';
  if (!/^https?:\/\/[^/]+/.test(authorizeUrl))
    throw new ConfigError(`SVC_SLACK_AUTHORIZE_URL must be an http(s) URL, got "${authorizeUrl}"`);
  return { clientId, clientSecret, authorizeUrl };
}
