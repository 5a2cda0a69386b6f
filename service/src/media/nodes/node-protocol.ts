/**
 * The frames of a media node's control channel (JSON over one WebSocket per control plane). The control plane sends
 * requests; the node answers each with a response of the same id and pushes its shards' events. Every frame a
 * node receives is parsed leniently here: anything malformed is dropped, never thrown.
 */
import type { ErrorCode, FieldError } from '../../shared/errors';

/** The largest frame either side accepts (an SDP-sized payload is a few kB). */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** The shard events a node pushes to the control plane (`lost` too: the shard's router died with its worker). */
export const SHARD_EVENTS = [
  'consumerClosed',
  'consumerPaused',
  'consumerResumed',
  'activeSpeaker',
  'pipedProducerClosed',
  'lost',
] as const;

/** The node-level methods (on no shard). */
export const NODE_METHODS = ['createShard'] as const;

/** The shard methods a node runs for the control plane: MediaShard's operations, nothing else. */
export const SHARD_METHODS = [
  'createTransport',
  'connectTransport',
  'createPlainTransport',
  'connectPlainTransport',
  'restartIce',
  'produce',
  'closeProducer',
  'setProducerPaused',
  'consume',
  'setConsumerPaused',
  'setConsumerLayers',
  'closePeer',
  'close',
  'createPipeTransport',
  'connectPipeTransport',
  'closePipeTransport',
  'pipeOut',
  'pipeIn',
] as const;

/** A node-level method's name. */
export type NodeMethod = (typeof NODE_METHODS)[number];
/** A shard method's name. */
export type ShardMethod = (typeof SHARD_METHODS)[number];

/** What `createShard` answers: the new shard's router (its id names the shard in later frames) and its facts. */
export interface ShardCreated {
  routerId: string;
  rtpCapabilities: unknown;
  slot: number;
}

/** A request from the control plane. `shard` is absent for node-level methods. */
export interface RequestFrame {
  id: number;
  method: NodeMethod | ShardMethod;
  shard?: string;
  args: unknown[];
}

/** A failed request's error, as an AppError's parts. */
export interface ErrorBody {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
}

/** The node's answer to one request. */
export type ResponseFrame = { id: number; ok: true; result?: unknown } | { id: number; ok: false; error: ErrorBody };

/** An event of one of the node's shards (a RoomMedia or MediaShard event, or `lost` when its router died). */
export interface EventFrame {
  event: string;
  shard: string;
  args: unknown[];
}

const ALL_METHODS = new Set<string>([...NODE_METHODS, ...SHARD_METHODS]);
const MAX_ARGS = 8;

function parseJson(raw: unknown): unknown {
  if (typeof raw !== 'string' && !Buffer.isBuffer(raw)) return undefined;
  try {
    return JSON.parse(raw.toString());
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A request frame from raw WebSocket data, or `{ id }` alone when it has a usable id but an unknown method or bad
 * shape (answer it with an error), or undefined when it is not even that (drop it).
 */
export function parseRequest(raw: unknown): RequestFrame | { id: number } | undefined {
  const frame = parseJson(raw);
  if (!isRecord(frame) || !Number.isSafeInteger(frame.id) || (frame.id as number) < 0) return undefined;
  const id = frame.id as number;
  if (typeof frame.method !== 'string' || !ALL_METHODS.has(frame.method)) return { id };
  if (!Array.isArray(frame.args) || frame.args.length > MAX_ARGS) return { id };
  if (frame.shard !== undefined && (typeof frame.shard !== 'string' || frame.shard.length > 64)) return { id };
  const isShardMethod = (SHARD_METHODS as readonly string[]).includes(frame.method);
  if (isShardMethod !== (frame.shard !== undefined)) return { id };
  return { id, method: frame.method as RequestFrame['method'], shard: frame.shard as string | undefined, args: frame.args };
}

/** A response or an event from raw WebSocket data (on the control plane), or undefined when malformed. */
export function parseNodeMessage(raw: unknown): ResponseFrame | EventFrame | undefined {
  const frame = parseJson(raw);
  if (!isRecord(frame)) return undefined;
  if (typeof frame.event === 'string' && typeof frame.shard === 'string' && Array.isArray(frame.args))
    return frame as unknown as EventFrame;
  if (!Number.isSafeInteger(frame.id) || typeof frame.ok !== 'boolean') return undefined;
  if (frame.ok) return frame as unknown as ResponseFrame;
  const error = frame.error;
  if (!isRecord(error) || typeof error.code !== 'string' || typeof error.detail !== 'string') return undefined;
  return frame as unknown as ResponseFrame;
}
