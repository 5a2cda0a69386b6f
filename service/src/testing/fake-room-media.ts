import { EventEmitter } from 'node:events';
import type {
  AudioTapping,
  MediaRecording,
  MicrophoneTap,
  PlainTransportInfo,
  ProduceInput,
  RecordedMedia,
  RoomMedia,
  RoomMediaEvents,
  RoomMediaProvider,
  TrackOwner,
} from '../rooms/room-media.interface';
import type { ConsumerOptions, MediaSource, TransportOptions } from '../rooms/room.protocol';
import { AppError } from '../shared/errors';
import { FakeTapping } from './fake-audio-tap';

/** RTP capabilities a fake client sends: `kinds` are what it can receive. */
export function fakeRtpCapabilities(kinds: ('audio' | 'video')[] = ['audio', 'video']): { kinds: ('audio' | 'video')[] } {
  return { kinds };
}

interface FakeTransport {
  peerId: string;
  direction: 'send' | 'recv';
  plain: boolean;
  connected: boolean;
}
interface FakeProducer {
  peerId: string;
  kind: 'audio' | 'video';
  source: MediaSource;
  paused: boolean;
  owner?: TrackOwner;
}
interface FakeConsumer {
  peerId: string;
  producerId: string;
  paused: boolean;
}

/** A recording on the fake media: `stop()` reports the tracks of the producers it saw; `fail()` plays a dying recorder. */
export class FakeMediaRecording implements MediaRecording {
  stopped = false;
  private readonly owners: (TrackOwner | null)[] = [];
  private videoTracks = 0;
  private readonly failureListeners: ((error: Error) => void)[] = [];

  constructor(readonly filePath: string) {}

  /** Adds a producer's track (what the recorder does for each producer of the room). */
  add(producer: { kind: 'audio' | 'video'; owner?: TrackOwner }): void {
    if (producer.kind === 'audio') this.owners.push(producer.owner ?? null);
    else this.videoTracks++;
  }

  async stop(): Promise<RecordedMedia> {
    this.stopped = true;
    if (this.owners.length + this.videoTracks === 0) throw AppError.conflict('Nothing was recorded');
    return {
      sizeBytes: 1000,
      durationSeconds: 1,
      contentType: 'video/webm',
      audioTracks: this.owners.length,
      videoTracks: this.videoTracks,
      audioTrackOwners: [...this.owners],
      tracks: [
        ...this.owners.map((owner, stream) => ({
          kind: 'audio' as const,
          source: 'microphone',
          owner,
          offset_seconds: 0,
          end_seconds: 1,
          stream,
        })),
        ...Array.from({ length: this.videoTracks }, (_, stream) => ({
          kind: 'video' as const,
          source: 'camera',
          owner: null,
          offset_seconds: 0,
          end_seconds: 1,
          stream,
        })),
      ],
    };
  }

  onFailure(listener: (error: Error) => void): void {
    this.failureListeners.push(listener);
  }

  /** The recorder dies while it runs. */
  fail(error: Error): void {
    for (const listener of this.failureListeners) listener(error);
  }
}

/**
 * A room's media without a mediasoup worker, for unit tests of Room and RoomsService: it keeps the same
 * books the real one does (every transport, producer and consumer belongs to a peer; another peer's id is
 * not_found), creates consumers paused, and emits the same events (a consumer closes with its producer,
 * pauses and resumes with it). No RTP flows.
 */
export class FakeRoomMedia extends EventEmitter<RoomMediaEvents> implements RoomMedia {
  readonly rtpCapabilities = { codecs: ['audio/opus', 'video/VP8'] };
  /** The recordings started on this media. */
  readonly recordings: FakeMediaRecording[] = [];
  /** The microphone tappings (live captions) started on this media. */
  readonly tappings: FakeTapping[] = [];
  private readonly transports = new Map<string, FakeTransport>();
  private readonly producers = new Map<string, FakeProducer>();
  private readonly consumers = new Map<string, FakeConsumer>();
  private nextId = 1;
  private isClosed = false;

  constructor(readonly routerId: string) {
    super();
  }

  /** True once closed (the room closed it, or its worker died). */
  get closed(): boolean {
    return this.isClosed;
  }

  /** How many transports, producers and consumers a peer has. */
  objectsOf(peerId: string): { transports: number; producers: number; consumers: number } {
    const count = (items: Map<string, { peerId: string }>) => [...items.values()].filter((item) => item.peerId === peerId).length;
    return { transports: count(this.transports), producers: count(this.producers), consumers: count(this.consumers) };
  }

  async createTransport(peerId: string, direction: 'send' | 'recv'): Promise<TransportOptions> {
    const id = this.track(peerId, direction, false);
    return { id, iceParameters: {}, iceCandidates: [], dtlsParameters: {} };
  }

  async connectTransport(peerId: string, transportId: string): Promise<void> {
    const transport = this.transportOf(peerId, transportId);
    if (transport.connected) throw AppError.conflict('The media server refused: connect() already called');
    transport.connected = true;
  }

  async createPlainTransport(peerId: string, direction: 'send' | 'recv', listenIp: string): Promise<PlainTransportInfo> {
    const id = this.track(peerId, direction, true);
    return { id, local: { ip: listenIp, port: 40_000 + this.nextId } };
  }

  async connectPlainTransport(peerId: string, transportId: string): Promise<void> {
    const transport = this.transportOf(peerId, transportId);
    if (!transport.plain) throw AppError.invalid([{ param: 'transportId', message: 'is not a plain transport' }]);
    transport.connected = true;
  }

  async restartIce(peerId: string, transportId: string): Promise<unknown> {
    this.transportOf(peerId, transportId);
    return { usernameFragment: `ice-${this.nextId++}`, password: 'fake', iceLite: true };
  }

  async produce(peerId: string, input: ProduceInput): Promise<string> {
    const transport = this.transportOf(peerId, input.transportId);
    if (transport.direction !== 'send') throw AppError.invalid([{ param: 'transportId', message: 'is not a send transport' }]);
    const id = this.newId('producer');
    this.producers.set(id, { peerId, kind: input.kind, source: input.source, paused: input.paused, owner: input.owner });
    for (const recording of this.recordings) if (!recording.stopped) recording.add(input);
    for (const tapping of this.tappings) tapping.add(id, input);
    return id;
  }

  closeProducer(peerId: string, producerId: string): void {
    this.producerOf(peerId, producerId);
    this.dropProducer(producerId);
  }

  async setProducerPaused(peerId: string, producerId: string, paused: boolean): Promise<void> {
    const producer = this.producerOf(peerId, producerId);
    if (producer.paused === paused) return;
    producer.paused = paused;
    for (const [consumerId, consumer] of this.consumers) {
      if (consumer.producerId === producerId) this.emit(paused ? 'consumerPaused' : 'consumerResumed', consumer.peerId, consumerId);
    }
  }

  async consume(peerId: string, producerId: string, rtpCapabilities: unknown): Promise<ConsumerOptions | null> {
    if (this.isClosed) return null;
    const producer = this.producers.get(producerId);
    const receives = [...this.transports.values()].some((t) => t.peerId === peerId && t.direction === 'recv');
    const kinds = (rtpCapabilities as { kinds?: string[] } | null)?.kinds ?? [];
    if (!producer || !receives || !kinds.includes(producer.kind)) return null;
    const id = this.newId('consumer');
    this.consumers.set(id, { peerId, producerId, paused: true });
    return {
      id,
      producerId,
      peerId: producer.peerId,
      kind: producer.kind,
      source: producer.source,
      rtpParameters: {},
      type: producer.kind === 'video' ? 'simulcast' : 'simple',
      producerPaused: producer.paused,
    };
  }

  /** True while the peer's consumer is paused (consumers start paused; the page resumes them). */
  consumerPaused(consumerId: string): boolean | undefined {
    return this.consumers.get(consumerId)?.paused;
  }

  async setConsumerPaused(peerId: string, consumerId: string, paused: boolean): Promise<void> {
    this.consumerOf(peerId, consumerId).paused = paused;
  }

  async setConsumerLayers(peerId: string, consumerId: string): Promise<void> {
    this.consumerOf(peerId, consumerId);
  }

  record(filePath: string): MediaRecording {
    if (this.isClosed) throw new AppError('conflict', 'The media server of this room is restarting; wait for mediaReset');
    const recording = new FakeMediaRecording(filePath);
    for (const producer of this.producers.values()) recording.add(producer);
    this.recordings.push(recording);
    return recording;
  }

  tapMicrophones(listener: (tap: MicrophoneTap) => void): AudioTapping {
    if (this.isClosed) throw new AppError('conflict', 'The media server of this room is restarting; wait for mediaReset');
    const tapping = new FakeTapping(listener);
    for (const [id, producer] of this.producers) tapping.add(id, producer);
    this.tappings.push(tapping);
    return tapping;
  }

  closePeer(peerId: string): void {
    for (const [id, producer] of [...this.producers]) if (producer.peerId === peerId) this.dropProducer(id);
    for (const [id, consumer] of [...this.consumers]) if (consumer.peerId === peerId) this.consumers.delete(id);
    for (const [id, transport] of [...this.transports]) if (transport.peerId === peerId) this.transports.delete(id);
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const tapping of this.tappings) tapping.close();
    this.transports.clear();
    this.producers.clear();
    this.consumers.clear();
  }

  private dropProducer(producerId: string): void {
    this.producers.delete(producerId);
    for (const tapping of this.tappings) tapping.drop(producerId);
    for (const [consumerId, consumer] of [...this.consumers]) {
      if (consumer.producerId !== producerId) continue;
      this.consumers.delete(consumerId);
      this.emit('consumerClosed', consumer.peerId, consumerId);
    }
  }

  private track(peerId: string, direction: 'send' | 'recv', plain: boolean): string {
    if (this.isClosed) throw new AppError('conflict', 'The media server of this room is restarting; wait for mediaReset');
    const id = this.newId('transport');
    this.transports.set(id, { peerId, direction, plain, connected: false });
    return id;
  }

  private newId(kind: string): string {
    return `${this.routerId}-${kind}-${this.nextId++}`;
  }

  private transportOf(peerId: string, id: string): FakeTransport {
    return owned(this.transports.get(id), peerId, `Transport ${id}`);
  }

  private producerOf(peerId: string, id: string): FakeProducer {
    return owned(this.producers.get(id), peerId, `Producer ${id}`);
  }

  private consumerOf(peerId: string, id: string): FakeConsumer {
    return owned(this.consumers.get(id), peerId, `Consumer ${id}`);
  }
}

function owned<T extends { peerId: string }>(item: T | undefined, peerId: string, what: string): T {
  if (!item || item.peerId !== peerId) throw AppError.notFound(what);
  return item;
}

/** Rooms' media without workers: every room gets a FakeRoomMedia; `loseWorker` plays a worker dying with some rooms. */
export class FakeRoomMediaProvider implements RoomMediaProvider {
  /** Every media created, in order. */
  readonly created: FakeRoomMedia[] = [];
  /** While false, `create` fails as it does while no worker runs. */
  available = true;
  private readonly lostListeners: ((routerIds: string[]) => void)[] = [];

  async create(): Promise<FakeRoomMedia> {
    // A real router is created asynchronously: rooms created at the same moment must still be one room.
    await new Promise((resolve) => setImmediate(resolve));
    if (!this.available) throw new AppError('conflict', 'No media worker is running');
    const media = new FakeRoomMedia(`router-${this.created.length + 1}`);
    this.created.push(media);
    return media;
  }

  onRoutersLost(listener: (routerIds: string[]) => void): void {
    this.lostListeners.push(listener);
  }

  /** The worker holding `media` died: its routers close and the rooms are told. */
  loseWorker(...media: FakeRoomMedia[]): void {
    for (const item of media) item.close();
    for (const listener of this.lostListeners) listener(media.map((item) => item.routerId));
  }
}
