import path from 'node:path';
import { rtcConfig, tlsSettings, turnConfig, turnUrls, type RtcConfig, type TlsSettings, type TurnConfig } from './config.network';
import { nodesConfig, type NodesConfig } from './config.nodes';
import { ConfigError, readBoolean as boolean, readInteger as integer } from './shared/env';
import { LOG_LEVELS, type LogLevel } from './shared/logger';

export { ConfigError } from './shared/env';
export { findOnPath, LETS_ENCRYPT_DIRECTORY_URL, type RtcConfig, type TlsSettings, type TurnConfig, type TurnMode } from './config.network';
export { mediaNodeConfig, type MediaNodeConfig, type NodesConfig } from './config.nodes';

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
  /** Media nodes registered in Redis; without SVC_REDIS_URL every room runs on this process's workers. */
  nodes: NodesConfig;
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

/** How rooms run: the empty-room grace period, credential lifetime and the TURN servers handed to browsers. */
export interface RoomSettings {
  /** A live meeting nobody has been in for this long ends by itself. */
  emptyGraceSeconds: number;
  /** TURN/STUN URLs (`turn:host:3478?transport=udp`, `turns:...`, `stun:...`) for browsers behind restrictive networks. */
  turnUrls: string[];
  /** coturn's `static-auth-secret`: browsers get time-limited TURN credentials (the TURN REST API scheme). */
  turnSecret: string | undefined;
  /** Requests to the room page's API (room info, credentials) per client address. */
  pageRateLimit: { perSecond: number; perMinute: number };
}

/** An OpenAI-compatible chat completions endpoint (OpenAI, Azure's compatible route, vLLM, Ollama, llama.cpp's server ...). */
export interface LlmSettings {
  /** The API's base URL; requests go to `{url}/chat/completions`. */
  url: string;
  /** Sent as `Authorization: Bearer ...`; absent for local servers that take no key. */
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

/** An OpenAI-compatible speech-to-text endpoint (`/audio/transcriptions`). */
export interface SttSettings {
  /** The API's base URL; requests go to `{url}/audio/transcriptions`. */
  url: string;
  /** Sent as `Authorization: Bearer ...`; absent for local servers that take no key. */
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
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
    nodes: nodesConfig(env),
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
