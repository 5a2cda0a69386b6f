/**
 * A media node's side of one control channel: creates shards for the control plane, runs the allow-listed
 * MediaShard methods on them (arguments checked by shape first) and pushes their events back. Every failure
 * becomes an error answer; nothing a frame holds can throw out of `handle`. The channel's shards close with it.
 */
import { AppError } from '../../shared/errors';
import type { Logger } from '../../shared/logger';
import type { MediaShard } from '../media-shard';
import {
  parseRequest,
  SHARD_EVENTS,
  type ErrorBody,
  type EventFrame,
  type ResponseFrame,
  type ShardCreated,
  type ShardMethod,
} from './node-protocol';

/** Creates the node's shards (a router on the least-loaded worker outside `avoidSlots`). */
export type ShardFactory = (meetingId: string, avoidSlots: number[]) => Promise<MediaShard>;

/** s: string, d: 'send'|'recv', o: object, b: boolean, n: number, m: optional number, a: anything, l: list of slots. */
const SIGNATURES: Record<ShardMethod | 'createShard', string> = {
  createShard: 'sl',
  createTransport: 'sd',
  connectTransport: 'ssa',
  createPlainTransport: 'sds',
  connectPlainTransport: 'sso',
  restartIce: 'ss',
  produce: 'so',
  closeProducer: 'ss',
  setProducerPaused: 'ssb',
  consume: 'ssa',
  setConsumerPaused: 'ssb',
  setConsumerLayers: 'ssnm',
  closePeer: 's',
  close: '',
  createPipeTransport: '',
  connectPipeTransport: 'so',
  closePipeTransport: 's',
  pipeOut: 'ss',
  pipeIn: 'so',
};

function fits(kind: string, value: unknown): boolean {
  switch (kind) {
    case 's':
      return typeof value === 'string' && value.length > 0 && value.length <= 200;
    case 'd':
      return value === 'send' || value === 'recv';
    case 'o':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'b':
      return typeof value === 'boolean';
    case 'n':
      return Number.isInteger(value);
    case 'm':
      return value === undefined || value === null || Number.isInteger(value);
    case 'l':
      return Array.isArray(value) && value.length <= 64 && value.every((slot) => Number.isInteger(slot));
    default:
      return true;
  }
}

function checkArgs(method: ShardMethod | 'createShard', args: unknown[]): void {
  const signature = SIGNATURES[method];
  if (args.length > signature.length || ![...signature].every((kind, i) => fits(kind, args[i]))) {
    throw AppError.invalid([{ param: 'args', message: `do not fit ${method}` }]);
  }
}

function errorBody(error: unknown): ErrorBody {
  if (error instanceof AppError)
    return { code: error.code, detail: error.detail, ...(error.extra.errors ? { errors: error.extra.errors } : {}) };
  return { code: 'internal_error', detail: 'The media node failed to run the request' };
}

/** Peers with a transport on any of `shards`. */
export function peersOn(shards: Iterable<Pick<MediaShard, 'peerCount'>>): number {
  let peers = 0;
  for (const shard of shards) peers += shard.peerCount();
  return peers;
}

/** One control channel's shards and their requests. */
export class ShardDispatcher {
  private readonly shards = new Map<string, MediaShard>();

  constructor(
    private readonly create: ShardFactory,
    private readonly send: (frame: ResponseFrame | EventFrame) => void,
    private readonly logger: Logger,
  ) {}

  /** Answers one raw frame; malformed frames are dropped, bad requests answered with an error. */
  async handle(raw: unknown): Promise<void> {
    const request = parseRequest(raw);
    if (!request) return this.logger.debug('media node: dropped a malformed frame');
    if (!('method' in request)) {
      this.send({
        id: request.id,
        ok: false,
        error: errorBody(AppError.invalid([{ param: 'method', message: 'is not a method of a media node' }])),
      });
      return;
    }
    try {
      checkArgs(request.method, request.args);
      const result =
        request.method === 'createShard'
          ? await this.createShard(request.args)
          : await this.run(request.shard!, request.method, request.args);
      this.send({ id: request.id, ok: true, result });
    } catch (error) {
      if (!(error instanceof AppError)) this.logger.warn('media node: a request failed', { method: request.method, error: String(error) });
      this.send({ id: request.id, ok: false, error: errorBody(error) });
    }
  }

  /** Peers with a transport on this channel's shards. */
  peerCount(): number {
    return peersOn(this.shards.values());
  }

  /** Shards open on this channel. */
  shardCount(): number {
    return this.shards.size;
  }

  /** Closes every shard (the channel closed: its control plane is gone). */
  closeAll(): void {
    for (const shard of this.shards.values()) shard.close();
    this.shards.clear();
  }

  private async createShard(args: unknown[]): Promise<ShardCreated> {
    const shard = await this.create(args[0] as string, args[1] as number[]);
    const shardId = shard.routerId;
    this.shards.set(shardId, shard);
    for (const event of SHARD_EVENTS) {
      shard.on(event, (...eventArgs: unknown[]) =>
        event === 'lost' ? this.markLost(shardId) : this.send({ event, shard: shardId, args: eventArgs }),
      );
    }
    return { routerId: shardId, rtpCapabilities: shard.rtpCapabilities, slot: shard.place.slot };
  }

  private markLost(shardId: string): void {
    if (!this.shards.delete(shardId)) return;
    this.send({ event: 'lost', shard: shardId, args: [] });
  }

  private async run(shardId: string, method: ShardMethod, args: unknown[]): Promise<unknown> {
    const shard = this.shards.get(shardId);
    if (!shard) {
      if (method === 'close' || method === 'closePeer' || method === 'closeProducer' || method === 'closePipeTransport') return undefined;
      throw AppError.conflict('This shard is gone from the media node (its worker died); wait for mediaReset');
    }
    if (method === 'close') this.shards.delete(shardId);
    const call = shard[method] as (...callArgs: unknown[]) => unknown;
    return (await call.apply(shard, args)) ?? null;
  }
}
