import { EventEmitter } from 'node:events';
import type { types } from 'mediasoup';
import type {
  AudioTapping,
  MediaRecording,
  MicrophoneTap,
  PlainTransportInfo,
  ProduceInput,
  RoomMediaProvider,
} from '../rooms/room-media.interface';
import type { ConsumerOptions, TransportOptions } from '../rooms/room.protocol';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { MicrophoneTapping } from './audio-tap';
import {
  LOCAL_NODE_ID,
  type MediaShard,
  type PipeAddress,
  type PipeEnd,
  type PipedProducer,
  type ShardEvents,
  type ShardPlace,
  type ShardPlacer,
} from './media-shard';
import { RoomRecorder, type RecorderOptions } from './recorder';
import { LOOPBACK_PIPE, ShardPipes, type Owned, type ProducerData } from './shard-pipes';
import { SpanningRoomMedia } from './spanning-room-media';
import type { PooledRouter, WorkerPool } from './worker-pool';

/** The codecs every room's router offers: Opus, VP8 (simulcast) and H.264 for browsers without VP8 hardware. */
export const ROOM_MEDIA_CODECS: types.RouterRtpCodecCapability[] = [
  { kind: 'audio', mimeType: 'audio/opus', clockRate: 48_000, channels: 2 },
  { kind: 'video', mimeType: 'video/VP8', clockRate: 90_000, parameters: { 'x-google-start-bitrate': 1000 } },
  {
    kind: 'video',
    mimeType: 'video/H264',
    clockRate: 90_000,
    parameters: { 'packetization-mode': 1, 'profile-level-id': '42e01f', 'level-asymmetry-allowed': 1 },
  },
];

/** How a room's shard runs on the pool: recordings use ffmpeg as RecorderOptions say. */
export interface MediasoupRoomMediaOptions extends RecorderOptions {
  /** Where the shard's pipe transports listen (a media node's own address and ports); default UDP on 127.0.0.1. */
  pipeListenInfo?: types.TransportListenInfo;
  /** Worker slots the room already uses: the router goes to another worker while one runs. */
  avoidSlots?: readonly number[];
}

interface Parts {
  pooled: PooledRouter;
  speakers: types.ActiveSpeakerObserver;
  options: MediasoupRoomMediaOptions;
}

/** How transports start: the bitrate a sender may use before congestion control knows better. */
const INITIAL_OUTGOING_BITRATE = 1_000_000;
/** Active-speaker decisions are made this often. */
const ACTIVE_SPEAKER_INTERVAL_MS = 300;

/**
 * A room's media on one mediasoup router, with ownership checks on every id a peer names: the whole room's
 * media, or one shard of a room spanning routers (producers piped in and out, media-shard.ts).
 */
export class MediasoupRoomMedia extends EventEmitter<ShardEvents> implements MediaShard {
  readonly place: ShardPlace;
  private readonly transports = new Map<string, types.WebRtcTransport<Owned> | types.PlainTransport<Owned>>();
  private readonly producers = new Map<string, types.Producer<ProducerData>>();
  private readonly consumers = new Map<string, types.Consumer<Owned>>();
  private readonly recorders = new Set<RoomRecorder>();
  private readonly tappings = new Set<MicrophoneTapping>();
  private closed = false;
  private readonly router: types.Router;
  private readonly webRtcServer: types.WebRtcServer;
  private readonly speakers: types.ActiveSpeakerObserver;
  private readonly recorderOptions: RecorderOptions;
  private readonly pipes: ShardPipes;

  private constructor({ pooled, speakers, options }: Parts) {
    super();
    this.router = pooled.router;
    this.webRtcServer = pooled.webRtcServer;
    this.speakers = speakers;
    this.recorderOptions = options;
    this.place = { nodeId: LOCAL_NODE_ID, slot: pooled.slot };
    this.pipes = new ShardPipes(pooled.router, options.pipeListenInfo ?? LOOPBACK_PIPE, {
      producer: (id) => this.producers.get(id),
      adopt: (producer) => this.adopt(producer),
      pipedProducerClosed: (id) => this.emit('pipedProducerClosed', id),
    });
    speakers.on('dominantspeaker', ({ producer }) => this.emit('activeSpeaker', (producer.appData as Owned).peerId));
    this.router.on('workerclose', () => {
      if (pooled.workerDied()) this.emit('lost');
    });
    this.router.observer.once('close', () => this.close());
  }

  /** A router with the room codecs on the least-loaded worker of the pool (outside `options.avoidSlots` if it can). */
  static async create(pool: WorkerPool, meetingId: string, options: MediasoupRoomMediaOptions = {}): Promise<MediasoupRoomMedia> {
    const pooled = await pool.createRouter({ mediaCodecs: ROOM_MEDIA_CODECS, appData: { meetingId } }, { avoidSlots: options.avoidSlots });
    const speakers = await pooled.router.createActiveSpeakerObserver({ interval: ACTIVE_SPEAKER_INTERVAL_MS });
    return new MediasoupRoomMedia({ pooled, speakers, options });
  }

  /** Peers with a transport on this router. */
  peerCount(): number {
    return new Set([...this.transports.values()].map((t) => t.appData.peerId)).size;
  }

  createPipeTransport(): Promise<PipeEnd> {
    this.assertOpen();
    return this.pipes.create();
  }

  connectPipeTransport(transportId: string, remote: PipeAddress): Promise<void> {
    return this.pipes.connect(transportId, remote);
  }

  closePipeTransport(transportId: string): void {
    this.pipes.close(transportId);
  }

  pipeOut(transportId: string, producerId: string): Promise<PipedProducer> {
    return this.pipes.pipeOut(transportId, producerId);
  }

  pipeIn(transportId: string, producer: PipedProducer): Promise<void> {
    this.assertOpen();
    return this.pipes.pipeIn(transportId, producer);
  }

  record(filePath: string): MediaRecording {
    this.assertOpen();
    const recorder = new RoomRecorder(this.router, filePath, this.recorderOptions);
    this.recorders.add(recorder);
    const forget = () => this.recorders.delete(recorder);
    recorder.onFailure(forget);
    for (const producer of this.producers.values())
      recorder.add({ producer, source: producer.appData.source, owner: producer.appData.owner });
    recorder.begin();
    return {
      stop: () => recorder.stop().finally(forget),
      onFailure: (listener) => recorder.onFailure(listener),
    };
  }

  tapMicrophones(listener: (tap: MicrophoneTap) => void): AudioTapping {
    this.assertOpen();
    const tapping = new MicrophoneTapping(this.router, listener, {
      ffmpeg: this.recorderOptions.ffmpeg,
      logger: this.recorderOptions.logger,
    });
    this.tappings.add(tapping);
    for (const producer of this.producers.values())
      tapping.add({ producer, source: producer.appData.source, owner: producer.appData.owner });
    return {
      stop: () => {
        this.tappings.delete(tapping);
        tapping.stop();
      },
      onClosed: (closed) => tapping.onClosed(closed),
    };
  }

  get routerId(): string {
    return this.router.id;
  }

  get rtpCapabilities(): unknown {
    return this.router.rtpCapabilities;
  }

  async createTransport(peerId: string, direction: 'send' | 'recv'): Promise<TransportOptions> {
    this.assertOpen();
    const transport = await this.router.createWebRtcTransport<Owned>({
      webRtcServer: this.webRtcServer,
      enableUdp: true,
      enableTcp: true,
      preferUdp: true,
      initialAvailableOutgoingBitrate: INITIAL_OUTGOING_BITRATE,
      appData: { peerId, direction },
    });
    this.track(transport);
    return {
      id: transport.id,
      iceParameters: transport.iceParameters,
      iceCandidates: transport.iceCandidates,
      dtlsParameters: transport.dtlsParameters,
    };
  }

  async connectTransport(peerId: string, transportId: string, dtlsParameters: unknown): Promise<void> {
    const transport = this.webRtcTransportOf(peerId, transportId);
    await mediasoupCall(() => transport.connect({ dtlsParameters: dtlsParameters as types.DtlsParameters }));
  }

  async createPlainTransport(peerId: string, direction: 'send' | 'recv', listenIp: string): Promise<PlainTransportInfo> {
    this.assertOpen();
    const transport = await this.router.createPlainTransport<Owned>({
      listenInfo: { protocol: 'udp', ip: listenIp },
      rtcpMux: true,
      comedia: direction === 'send',
      appData: { peerId, direction },
    });
    this.track(transport);
    return { id: transport.id, local: { ip: transport.tuple.localAddress ?? listenIp, port: transport.tuple.localPort } };
  }

  async connectPlainTransport(peerId: string, transportId: string, to: PlainTransportInfo['local']): Promise<void> {
    const transport = this.transportOf(peerId, transportId);
    if (transport.type !== 'plain') throw AppError.invalid([{ param: 'transportId', message: 'is not a plain transport' }]);
    await (transport as types.PlainTransport<Owned>).connect({ ip: to.ip, port: to.port });
  }

  async restartIce(peerId: string, transportId: string): Promise<unknown> {
    const transport = this.webRtcTransportOf(peerId, transportId);
    return mediasoupCall(() => transport.restartIce());
  }

  /** RTP packets the room's consumers have sent so far (their outbound-rtp stats), for benchmarks and diagnostics. */
  async packetsSentToConsumers(): Promise<number> {
    const stats = await Promise.all([...this.consumers.values()].map((consumer) => consumer.getStats()));
    return stats.flat().reduce((sum, s) => sum + (s.type === 'outbound-rtp' ? s.packetCount : 0), 0);
  }

  async produce(peerId: string, input: ProduceInput): Promise<string> {
    const transport = this.transportOf(peerId, input.transportId);
    if (transport.appData.direction !== 'send') throw AppError.invalid([{ param: 'transportId', message: 'is not a send transport' }]);
    const producer = (await mediasoupCall(() =>
      transport.produce({
        kind: input.kind,
        rtpParameters: input.rtpParameters as types.RtpParameters,
        paused: input.paused,
        appData: { peerId, source: input.source, owner: input.owner },
      }),
    )) as types.Producer<ProducerData>;
    await this.adopt(producer);
    return producer.id;
  }

  /** A new producer (own or piped in) joins the room's taps, active-speaker observer and recordings. */
  private async adopt(producer: types.Producer<ProducerData>): Promise<void> {
    const { source, owner } = producer.appData;
    this.producers.set(producer.id, producer);
    producer.observer.once('close', () => this.producers.delete(producer.id));
    for (const tapping of this.tappings) tapping.add({ producer, source, owner });
    if (producer.kind === 'audio') await this.speakers.addProducer({ producerId: producer.id }).catch(() => undefined);
    for (const recorder of this.recorders) recorder.add({ producer, source, owner });
  }

  closeProducer(peerId: string, producerId: string): void {
    this.producerOf(peerId, producerId).close();
  }

  async setProducerPaused(peerId: string, producerId: string, paused: boolean): Promise<void> {
    const producer = this.producerOf(peerId, producerId);
    await mediasoupCall(() => (paused ? producer.pause() : producer.resume()));
  }

  async consume(peerId: string, producerId: string, rtpCapabilities: unknown): Promise<ConsumerOptions | null> {
    if (this.closed) return null;
    const producer = this.producers.get(producerId);
    const transport = [...this.transports.values()].find((t) => t.appData.peerId === peerId && t.appData.direction === 'recv');
    if (!producer || !transport) return null;
    const capabilities = rtpCapabilities as types.RtpCapabilities;
    if (!this.router.canConsume({ producerId, rtpCapabilities: capabilities })) return null;
    const consumer = await transport.consume<Owned>({
      producerId,
      rtpCapabilities: capabilities,
      paused: true,
      appData: { peerId },
    });
    this.consumers.set(consumer.id, consumer);
    consumer.observer.once('close', () => this.consumers.delete(consumer.id));
    consumer.on('producerclose', () => this.emit('consumerClosed', peerId, consumer.id));
    consumer.on('producerpause', () => this.emit('consumerPaused', peerId, consumer.id));
    consumer.on('producerresume', () => this.emit('consumerResumed', peerId, consumer.id));
    const { peerId: producerPeerId, source } = producer.appData;
    return {
      id: consumer.id,
      producerId,
      peerId: producerPeerId,
      kind: consumer.kind,
      source,
      rtpParameters: consumer.rtpParameters,
      type: consumer.type,
      producerPaused: consumer.producerPaused,
    };
  }

  async setConsumerPaused(peerId: string, consumerId: string, paused: boolean): Promise<void> {
    const consumer = this.consumerOf(peerId, consumerId);
    await mediasoupCall(() => (paused ? consumer.pause() : consumer.resume()));
    // A resumed video consumer needs a keyframe to show anything before the next periodic one.
    if (!paused && consumer.kind === 'video') await consumer.requestKeyFrame().catch(() => undefined);
  }

  async setConsumerLayers(peerId: string, consumerId: string, spatialLayer: number, temporalLayer?: number): Promise<void> {
    const consumer = this.consumerOf(peerId, consumerId);
    if (consumer.type !== 'simulcast' && consumer.type !== 'svc') return;
    await mediasoupCall(() => consumer.setPreferredLayers({ spatialLayer, temporalLayer }));
  }

  closePeer(peerId: string): void {
    for (const transport of [...this.transports.values()]) {
      if (transport.appData.peerId === peerId) transport.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.router.close();
    this.transports.clear();
    this.producers.clear();
    this.consumers.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError('conflict', 'The media server of this room is restarting; wait for mediaReset');
  }

  private track(transport: types.Transport<Owned>): void {
    this.transports.set(transport.id, transport as types.WebRtcTransport<Owned> | types.PlainTransport<Owned>);
    transport.observer.once('close', () => this.transports.delete(transport.id));
  }

  private transportOf(peerId: string, id: string): types.WebRtcTransport<Owned> | types.PlainTransport<Owned> {
    return owned(this.transports.get(id), peerId, `Transport ${id}`);
  }

  private webRtcTransportOf(peerId: string, id: string): types.WebRtcTransport<Owned> {
    const transport = this.transportOf(peerId, id);
    if (transport.type !== 'webrtc') throw AppError.invalid([{ param: 'transportId', message: 'is not a WebRTC transport' }]);
    return transport as types.WebRtcTransport<Owned>;
  }

  private producerOf(peerId: string, id: string): types.Producer<ProducerData> {
    return owned(this.producers.get(id), peerId, `Producer ${id}`);
  }

  private consumerOf(peerId: string, id: string): types.Consumer<Owned> {
    return owned(this.consumers.get(id), peerId, `Consumer ${id}`);
  }
}

function owned<T extends { appData: Owned }>(item: T | undefined, peerId: string, what: string): T {
  // Another peer's id is reported exactly like an unknown one, so ids cannot be probed.
  if (!item || item.appData.peerId !== peerId) throw AppError.notFound(what);
  return item;
}

/**
 * Runs a mediasoup call whose input came from a client: a refusal (bad parameters, a second connect) is
 * the client's error, so it becomes validation_failed, or conflict when the object's state forbids it
 * (it closed in the worker a moment ago, as when its producer's peer left).
 */
async function mediasoupCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppError || !(error instanceof Error)) throw error;
    if (error.name === 'InvalidStateError' || /not found/i.test(error.message))
      throw AppError.conflict(`The media server refused: ${error.message}`);
    throw AppError.invalid([{ param: 'data', message: `was refused by the media server: ${error.message}` }]);
  }
}

/** Shards on this process's workers: every worker is a place, without a cap on peers. */
export function localShardPlacer(pool: WorkerPool, options: MediasoupRoomMediaOptions = {}): ShardPlacer {
  return {
    createShard: (meetingId, avoid) =>
      MediasoupRoomMedia.create(pool, meetingId, {
        ...options,
        avoidSlots: avoid.filter((place) => place.nodeId === LOCAL_NODE_ID).map((place) => place.slot),
      }),
    hasRoomFor: () => true,
    placeCount: () => pool.runningWorkers(),
    cpuOf: (shard) => pool.cpu.of(shard.place.slot),
  };
}

/**
 * Rooms' media on a worker pool, each room a SpanningRoomMedia over its shards (a meeting keeps one router;
 * a webinar's viewers spread over every worker); recordings use ffmpeg as `recorder` says.
 */
export function roomMediaProvider(pool: WorkerPool, recorder: RecorderOptions & { logger?: Logger } = {}): RoomMediaProvider {
  return SpanningRoomMedia.provider(localShardPlacer(pool, recorder));
}

/**
 * Rooms' media on `places` (media nodes, and `pool` among them when the service runs workers); a room with no shard
 * on `pool` records and taps its microphones on a recording shard there (recording-shard.ts), or refuses without one.
 */
export function nodesMediaProvider(places: ShardPlacer, pool: WorkerPool | undefined, recorder: RecorderOptions = {}): RoomMediaProvider {
  return SpanningRoomMedia.provider(places, pool && localShardPlacer(pool, recorder));
}
