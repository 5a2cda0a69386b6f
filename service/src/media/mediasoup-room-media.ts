import { EventEmitter } from 'node:events';
import type { types } from 'mediasoup';
import type {
  AudioTapping,
  MediaRecording,
  MicrophoneTap,
  PlainTransportInfo,
  ProduceInput,
  RoomMedia,
  RoomMediaEvents,
  RoomMediaProvider,
  TrackOwner,
} from '../rooms/room-media.interface';
import type { ConsumerOptions, MediaSource, TransportOptions } from '../rooms/room.protocol';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { MicrophoneTapping } from './audio-tap';
import { RoomRecorder, type RecorderOptions } from './recorder';
import type { WorkerPool } from './worker-pool';

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

/** What the room's objects carry in mediasoup's appData. */
interface Owned {
  peerId: string;
  [key: string]: unknown;
}
interface ProducerData extends Owned {
  source: MediaSource;
  owner?: TrackOwner;
}

/** How transports start: the bitrate a sender may use before congestion control knows better. */
const INITIAL_OUTGOING_BITRATE = 1_000_000;
/** Active-speaker decisions are made this often. */
const ACTIVE_SPEAKER_INTERVAL_MS = 300;

/** A room's media on one mediasoup router, with ownership checks on every id a peer names. */
export class MediasoupRoomMedia extends EventEmitter<RoomMediaEvents> implements RoomMedia {
  private readonly transports = new Map<string, types.WebRtcTransport<Owned> | types.PlainTransport<Owned>>();
  private readonly producers = new Map<string, types.Producer<ProducerData>>();
  private readonly consumers = new Map<string, types.Consumer<Owned>>();
  private readonly recorders = new Set<RoomRecorder>();
  private readonly tappings = new Set<MicrophoneTapping>();
  private closed = false;

  private constructor(
    private readonly router: types.Router,
    private readonly webRtcServer: types.WebRtcServer,
    private readonly speakers: types.ActiveSpeakerObserver,
    private readonly recorderOptions: RecorderOptions = {},
  ) {
    super();
    speakers.on('dominantspeaker', ({ producer }) => this.emit('activeSpeaker', (producer.appData as Owned).peerId));
    router.observer.once('close', () => this.close());
  }

  /** A router with the room codecs on the least-loaded worker of the pool. */
  static async create(pool: WorkerPool, meetingId: string, recorderOptions: RecorderOptions = {}): Promise<MediasoupRoomMedia> {
    const { router, webRtcServer } = await pool.createRouter({ mediaCodecs: ROOM_MEDIA_CODECS, appData: { meetingId } });
    const speakers = await router.createActiveSpeakerObserver({ interval: ACTIVE_SPEAKER_INTERVAL_MS });
    return new MediasoupRoomMedia(router, webRtcServer, speakers, recorderOptions);
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
    this.producers.set(producer.id, producer);
    producer.observer.once('close', () => this.producers.delete(producer.id));
    for (const tapping of this.tappings) tapping.add({ producer, source: input.source, owner: input.owner });
    if (producer.kind === 'audio') await this.speakers.addProducer({ producerId: producer.id }).catch(() => undefined);
    for (const recorder of this.recorders) recorder.add({ producer, source: input.source, owner: input.owner });
    return producer.id;
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

/** Rooms' media on a worker pool; recordings use ffmpeg as `recorder` says. */
export function roomMediaProvider(pool: WorkerPool, recorder: RecorderOptions & { logger?: Logger } = {}): RoomMediaProvider {
  return {
    create: (meetingId) => MediasoupRoomMedia.create(pool, meetingId, recorder),
    onRoutersLost: (listener) => pool.on('workerDied', ({ routerIds }) => listener(routerIds)),
  };
}
