import os from 'node:os';
import { rtcConfig, type RtcConfig } from './config.network';
import { ConfigError, readInteger as integer } from './shared/env';
import { LOG_LEVELS, type LogLevel } from './shared/logger';

/** Media nodes, seen from the control plane: rooms are placed on nodes registered in Redis (SVC_REDIS_URL), or on this process's workers only. */
export interface NodesConfig {
  /** The registry of media nodes; absent: no nodes, every room on this process's workers (the default). */
  redisUrl: string | undefined;
  /** Authenticates the control plane and its nodes to each other (SVC_NODE_SECRET, the same everywhere). */
  secret: string | undefined;
}

/** A media node process (`svc media-node`): its workers, its control channel and its registration. */
export interface MediaNodeConfig {
  /** The node's name in the registry (SVC_NODE_ID); default: host name and control port. */
  id: string;
  redisUrl: string;
  secret: string;
  /** Where the control channel listens (SVC_NODE_LISTEN_IP, SVC_NODE_PORT). */
  listenIp: string;
  port: number;
  /** The host the control plane reaches the channel at (SVC_NODE_ADDRESS); absent: the listen or announced address. */
  address: string | undefined;
  /** Peers the node takes at most (SVC_NODE_MAX_PEERS); null: no cap. */
  maxPeers: number | null;
  rtc: RtcConfig;
  logLevel: LogLevel;
}

const MIN_SECRET_LENGTH = 32;

function redisUrl(env: NodeJS.ProcessEnv): string | undefined {
  const url = env.SVC_REDIS_URL || undefined;
  if (url !== undefined && !/^rediss?:\/\/[^\s]+$/.test(url)) throw new ConfigError('SVC_REDIS_URL must be a redis:// or rediss:// URL');
  return url;
}

function nodeSecret(env: NodeJS.ProcessEnv, needed: string | undefined): string | undefined {
  const secret = env.SVC_NODE_SECRET || undefined;
  if (needed && secret === undefined) {
    throw new ConfigError(
      `${needed} needs SVC_NODE_SECRET: the control plane and its media nodes authenticate each other with it (at least ${MIN_SECRET_LENGTH} characters, the same on every one, e.g. from \`openssl rand -hex 32\`)`,
    );
  }
  if (secret !== undefined && secret.length < MIN_SECRET_LENGTH)
    throw new ConfigError(`SVC_NODE_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
  return secret;
}

/** The control plane's media node settings (SVC_REDIS_URL, SVC_NODE_SECRET). */
export function nodesConfig(env: NodeJS.ProcessEnv): NodesConfig {
  const url = redisUrl(env);
  return { redisUrl: url, secret: nodeSecret(env, url && 'SVC_REDIS_URL') };
}

/** A media node's settings (SVC_REDIS_URL, SVC_NODE_*, SVC_RTC_*, SVC_LOG_LEVEL). */
export function mediaNodeConfig(env: NodeJS.ProcessEnv): MediaNodeConfig {
  const url = redisUrl(env);
  if (!url)
    throw new ConfigError('svc media-node registers in Redis: set SVC_REDIS_URL (e.g. redis://10.0.0.5:6379), the same as the service’s');
  const secret = nodeSecret(env, 'svc media-node')!;
  const rtc = rtcConfig(env);
  if (rtc.workers === 0) throw new ConfigError('svc media-node runs mediasoup workers: SVC_RTC_WORKERS must be at least 1');
  const port = integer(env, 'SVC_NODE_PORT', 7710, 0, 65_535);
  const id = env.SVC_NODE_ID || `${os.hostname()}-${port}`;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(id))
    throw new ConfigError(`SVC_NODE_ID must be 1-64 letters, digits, dots, dashes or underscores, got "${id}"`);
  const listenIp = env.SVC_NODE_LISTEN_IP || '0.0.0.0';
  if (!/^[0-9a-fA-F.:]+$/.test(listenIp)) throw new ConfigError(`SVC_NODE_LISTEN_IP must be an IP address, got "${listenIp}"`);
  const address = env.SVC_NODE_ADDRESS || undefined;
  if (address !== undefined && !/^[A-Za-z0-9.:-]+$/.test(address))
    throw new ConfigError(`SVC_NODE_ADDRESS must be a host name or IP address, got "${address}"`);
  const maxPeers = env.SVC_NODE_MAX_PEERS ? integer(env, 'SVC_NODE_MAX_PEERS', 0, 1, 1_000_000) : null;
  const logLevel = (env.SVC_LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`SVC_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return { id, redisUrl: url, secret, listenIp, port, address, maxPeers, rtc, logLevel };
}
