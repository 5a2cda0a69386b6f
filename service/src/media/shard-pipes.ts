/**
 * The pipe side of a room's shard on one router (MediaShard's pipe operations): PipeTransports to other
 * shards' routers, pipe consumers of this router's producers, and the copies of other shards' producers,
 * made the way mediasoup's own `router.pipeToRouter` makes them (pipe consumer on the source router, a
 * producer with the same id and RTP parameters on the destination, paused as the source is) but with each
 * step a separate call, so the other end may be a router of another process (a media node).
 */
import type { types } from 'mediasoup';
import type { TrackOwner } from '../rooms/room-media.interface';
import type { MediaSource } from '../rooms/room.protocol';
import { AppError } from '../shared/errors';
import type { MediaShard, PipeAddress, PipeEnd, PipedProducer } from './media-shard';

/** What the room's objects carry in mediasoup's appData. */
export interface Owned {
  peerId: string;
  [key: string]: unknown;
}

/** A producer's appData: its peer (for a copy: the sending peer on its own shard), source and owner. */
export interface ProducerData extends Owned {
  source: MediaSource;
  owner?: TrackOwner;
}

/** Where pipe transports listen when nothing else is said: the workers of one machine reach each other on loopback. */
export const LOOPBACK_PIPE: types.TransportListenInfo = { protocol: 'udp', ip: '127.0.0.1' };

/** What the shard does for its pipes. */
export interface PipeHost {
  /** One of the shard's producers (own or piped in). */
  producer(id: string): types.Producer<ProducerData> | undefined;
  /** Makes a piped-in producer part of the shard like an own one (consumers, recordings, taps, speakers). */
  adopt(producer: types.Producer<ProducerData>): Promise<void>;
  /** A producer piped out of the shard closed at its source. */
  pipedProducerClosed(producerId: string): void;
}

/** One router's pipe transports and what flows through them. */
export class ShardPipes {
  private readonly transports = new Map<string, types.PipeTransport>();

  constructor(
    private readonly router: types.Router,
    private readonly listenInfo: types.TransportListenInfo,
    private readonly host: PipeHost,
  ) {}

  /** A pipe transport on the router, listening on the shard's pipe address. */
  async create(): Promise<PipeEnd> {
    const transport = await this.router.createPipeTransport({ listenInfo: this.listenInfo });
    this.transports.set(transport.id, transport);
    transport.observer.once('close', () => this.transports.delete(transport.id));
    const { localAddress, localPort } = transport.tuple;
    return { transportId: transport.id, local: { ip: localAddress ?? this.listenInfo.ip, port: localPort } };
  }

  async connect(transportId: string, remote: PipeAddress): Promise<void> {
    await this.transportOf(transportId).connect({ ip: remote.ip, port: remote.port });
  }

  /** Closes a pipe transport with its pipe consumers and copies; one not there (any more) is nothing to close. */
  close(transportId: string): void {
    this.transports.get(transportId)?.close();
  }

  /** A pipe consumer of one of the router's producers; the producer's closing is reported to the host. */
  async pipeOut(transportId: string, producerId: string): Promise<PipedProducer> {
    const transport = this.transportOf(transportId);
    const producer = this.host.producer(producerId);
    if (!producer) throw AppError.notFound(`Producer ${producerId}`);
    const consumer = await transport.consume({ producerId });
    consumer.on('producerclose', () => this.host.pipedProducerClosed(producerId));
    const { peerId, source, owner } = producer.appData;
    return {
      producerId,
      peerId,
      kind: consumer.kind,
      rtpParameters: consumer.rtpParameters,
      paused: consumer.producerPaused,
      source,
      ...(owner ? { owner } : {}),
    };
  }

  /** The copy of another router's producer, under the same id and owned by the same peer. */
  async pipeIn(transportId: string, piped: PipedProducer): Promise<void> {
    const transport = this.transportOf(transportId);
    const producer = await transport.produce<ProducerData>({
      id: piped.producerId,
      kind: piped.kind,
      rtpParameters: piped.rtpParameters as types.RtpParameters,
      paused: piped.paused,
      appData: { peerId: piped.peerId, source: piped.source, ...(piped.owner ? { owner: piped.owner } : {}) },
    });
    await this.host.adopt(producer);
  }

  private transportOf(id: string): types.PipeTransport {
    const transport = this.transports.get(id);
    if (!transport) throw AppError.notFound(`Pipe transport ${id}`);
    return transport;
  }
}

/** A connected pipe transport pair between two shards (a room's, each with its media): each end's transport id by shard. */
export async function connectPipe<S extends { media: MediaShard }>(a: S, b: S): Promise<Map<S, string>> {
  const [madeA, madeB] = await Promise.allSettled([a.media.createPipeTransport(), b.media.createPipeTransport()]);
  const endA = madeA.status === 'fulfilled' ? madeA.value : undefined;
  const endB = madeB.status === 'fulfilled' ? madeB.value : undefined;
  // A half-made pair is closed: nothing else knows its ends.
  const closeEnds = () => {
    if (endA) a.media.closePipeTransport(endA.transportId);
    if (endB) b.media.closePipeTransport(endB.transportId);
  };
  if (!endA || !endB) {
    closeEnds();
    throw madeA.status === 'rejected' ? madeA.reason : (madeB as PromiseRejectedResult).reason;
  }
  try {
    await Promise.all([
      a.media.connectPipeTransport(endA.transportId, endB.local),
      b.media.connectPipeTransport(endB.transportId, endA.local),
    ]);
  } catch (error) {
    closeEnds();
    throw error;
  }
  return new Map([
    [a, endA.transportId],
    [b, endB.transportId],
  ]);
}

/** Closes the ends of pipe pairs (connectPipe's) that are not `gone`'s: the shard at their other end closed. */
export function closeFarEnds<S extends { media: MediaShard }>(pairs: Promise<Map<S, string>>[], gone: S): void {
  for (const pair of pairs) pair.then((ends) => ends.forEach((id, end) => end !== gone && end.media.closePipeTransport(id)), noop);
}

function noop(): void {}
