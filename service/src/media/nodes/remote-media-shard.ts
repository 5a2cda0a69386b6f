/**
 * A room's shard on a media node, seen from the control plane: every MediaShard operation is a request over the
 * node's control channel (node-link.ts); the node's events for the shard are emitted here. Recording and live
 * captions run ffmpeg beside the router, which is on the node: a remote shard refuses them (conflict), and the
 * room-wide media records on a shard of the service's own workers when it has one (media/recording-shard.ts).
 */
import { EventEmitter } from 'node:events';
import type { AudioTapping, MediaRecording, PlainTransportInfo, ProduceInput } from '../../rooms/room-media.interface';
import type { ConsumerOptions, TransportOptions } from '../../rooms/room.protocol';
import { AppError } from '../../shared/errors';
import type { MediaShard, PipeAddress, PipeEnd, PipedProducer, ShardEvents, ShardPlace } from '../media-shard';
import type { NodeLink } from './node-link';
import { SHARD_EVENTS, type EventFrame, type ShardCreated, type ShardMethod } from './node-protocol';

const FORWARDED_EVENTS = new Set<string>(SHARD_EVENTS);

/** Why a room on a media node cannot be recorded or captioned. */
export const REMOTE_RECORDING_REFUSAL =
  'Recording and live captions need a media worker in the service itself (SVC_RTC_WORKERS of at least 1): this room runs on a media node';

/** One shard of a room on a media node. */
export class RemoteMediaShard extends EventEmitter<ShardEvents> implements MediaShard {
  readonly place: ShardPlace;
  readonly routerId: string;
  readonly rtpCapabilities: unknown;
  private readonly peers = new Set<string>();
  private closed = false;

  constructor(
    private readonly link: NodeLink,
    created: ShardCreated,
    nodeId: string,
    private readonly onClosed: (shard: RemoteMediaShard) => void,
  ) {
    super();
    this.place = { nodeId, slot: created.slot };
    this.routerId = created.routerId;
    this.rtpCapabilities = created.rtpCapabilities;
  }

  /** Passes on one of the node's events for this shard. */
  deliver(frame: EventFrame): void {
    if (frame.event === 'lost') return this.lose();
    if (this.closed || !FORWARDED_EVENTS.has(frame.event)) return;
    (this.emit as (event: string, ...args: unknown[]) => boolean)(frame.event, ...frame.args);
  }

  /** The node or its worker is gone: the shard's media went with it. */
  lose(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed(this);
    this.emit('lost');
  }

  peerCount(): number {
    return this.peers.size;
  }

  record(): MediaRecording {
    throw AppError.conflict(REMOTE_RECORDING_REFUSAL);
  }

  tapMicrophones(): AudioTapping {
    throw AppError.conflict(REMOTE_RECORDING_REFUSAL);
  }

  async createTransport(peerId: string, direction: 'send' | 'recv'): Promise<TransportOptions> {
    const transport = await this.call<TransportOptions>('createTransport', peerId, direction);
    this.peers.add(peerId);
    return transport;
  }

  connectTransport(peerId: string, transportId: string, dtlsParameters: unknown): Promise<void> {
    return this.call('connectTransport', peerId, transportId, dtlsParameters);
  }

  async createPlainTransport(peerId: string, direction: 'send' | 'recv', listenIp: string): Promise<PlainTransportInfo> {
    const transport = await this.call<PlainTransportInfo>('createPlainTransport', peerId, direction, listenIp);
    this.peers.add(peerId);
    return transport;
  }

  connectPlainTransport(peerId: string, transportId: string, to: PlainTransportInfo['local']): Promise<void> {
    return this.call('connectPlainTransport', peerId, transportId, to);
  }

  restartIce(peerId: string, transportId: string): Promise<unknown> {
    return this.call('restartIce', peerId, transportId);
  }

  produce(peerId: string, input: ProduceInput): Promise<string> {
    return this.call('produce', peerId, input);
  }

  closeProducer(peerId: string, producerId: string): void {
    this.notify('closeProducer', peerId, producerId);
  }

  setProducerPaused(peerId: string, producerId: string, paused: boolean): Promise<void> {
    return this.call('setProducerPaused', peerId, producerId, paused);
  }

  async consume(peerId: string, producerId: string, rtpCapabilities: unknown): Promise<ConsumerOptions | null> {
    if (this.closed) return null;
    return this.call('consume', peerId, producerId, rtpCapabilities);
  }

  setConsumerPaused(peerId: string, consumerId: string, paused: boolean): Promise<void> {
    return this.call('setConsumerPaused', peerId, consumerId, paused);
  }

  setConsumerLayers(peerId: string, consumerId: string, spatialLayer: number, temporalLayer?: number): Promise<void> {
    return this.call('setConsumerLayers', peerId, consumerId, spatialLayer, temporalLayer ?? null);
  }

  closePeer(peerId: string): void {
    this.peers.delete(peerId);
    this.notify('closePeer', peerId);
  }

  close(): void {
    if (this.closed) return;
    this.notify('close');
    this.closed = true;
    this.onClosed(this);
  }

  createPipeTransport(): Promise<PipeEnd> {
    return this.call('createPipeTransport');
  }

  connectPipeTransport(transportId: string, remote: PipeAddress): Promise<void> {
    return this.call('connectPipeTransport', transportId, remote);
  }

  closePipeTransport(transportId: string): void {
    this.notify('closePipeTransport', transportId);
  }

  pipeOut(transportId: string, producerId: string): Promise<PipedProducer> {
    return this.call('pipeOut', transportId, producerId);
  }

  pipeIn(transportId: string, producer: PipedProducer): Promise<void> {
    return this.call('pipeIn', transportId, producer);
  }

  private async call<T = void>(method: ShardMethod, ...args: unknown[]): Promise<T> {
    if (this.closed) throw AppError.conflict('The media server of this room is restarting; wait for mediaReset');
    return (await this.link.request(method, this.routerId, args)) as T;
  }

  /** A request whose answer nobody waits for (the interface's close calls return nothing). */
  private notify(method: ShardMethod, ...args: unknown[]): void {
    if (this.closed) return;
    this.link.request(method, this.routerId, args).catch(() => undefined);
  }
}
