/**
 * `svc media-node` and `svc media-node --drain`: runs a media node until SIGTERM/SIGINT (stop now: its rooms move to
 * other media) or a drain (SIGUSR2, or `--drain` from any machine with the node's SVC_NODE_ID and Redis: no new rooms,
 * exit once its rooms ended or moved).
 */
import { mediaNodeConfig, type MediaNodeConfig } from '../../config';
import { createLogger } from '../../shared/logger';
import { startMediaNode } from './media-node';
import { openRedis, requestDrain } from './node-registry';

/** Where the command writes. */
export interface NodeCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

async function drainOther(config: MediaNodeConfig, io: NodeCliIo): Promise<number> {
  const logger = createLogger('silent');
  const redis = await openRedis(config.redisUrl, logger, 'svc media-node --drain');
  try {
    const record = await requestDrain(redis, config.id);
    io.out(
      record
        ? `media node ${config.id} drains: no new rooms; it exits once its rooms ended or moved\n`
        : `media node ${config.id} is not registered now; it drains when it next registers (within 7 days)\n`,
    );
    return 0;
  } finally {
    redis.disconnect();
  }
}

/** Runs the command; resolves with the exit code once the node stopped (or the drain request was written). */
export async function runMediaNodeCli(argv: readonly string[], io: NodeCliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const config = mediaNodeConfig(env);
    return await (argv.includes('--drain') ? drainOther(config, io) : run(config, io));
  } catch (error) {
    io.err(`svc media-node: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function run(config: MediaNodeConfig, io: NodeCliIo): Promise<number> {
  const logger = createLogger(config.logLevel);
  const node = await startMediaNode(config, logger);
  io.out(`media node ${node.id} listening on ${node.controlUrl} (RTC ports ${config.rtc.minPort}-${config.rtc.maxPort})\n`);
  const stop = () => void node.stop();
  const drain = () => node.drain();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGUSR2', drain);
  await node.stopped;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  process.off('SIGUSR2', drain);
  return 0;
}
