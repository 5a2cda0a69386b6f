/**
 * A room's media over one or more routers (shards, media-shard.ts): each peer is placed on one shard at its
 * first transport and every call of that peer goes there; every producer is piped into every other shard (one
 * pair of PipeTransports per pair of shards, reused), so each peer consumes every producer on its own router.
 * The first shard is the home shard: it has every producer (own or piped), so the active speaker is its; so are
 * recordings and microphone taps when it runs on this process's workers (else see recording-shard.ts).
 *
 * Placement: a meeting stays on its home shard while the home's place has room (local workers have no cap,
 * so without media nodes a meeting is one router, as before); a full place sends new peers to the next shard
 * with room, opened when none has. A webinar spreads its peers over every place: a new peer goes to the shard whose
 * worker has the most CPU left (webinar-placement.ts), and once that shard has WEBINAR_SHARD_PEERS peers a shard on
 * a place the room does not use yet is opened for it instead (while one exists).
 */
import { EventEmitter } from 'node:events';
import type {
  AudioTapping,
  MediaRecording,
  MicrophoneTap,
  PlainTransportInfo,
  ProduceInput,
  RoomMedia,
  RoomMediaEvents,
  RoomMediaOptions,
  RoomMediaProvider,
} from '../rooms/room-media.interface';
import type { ConsumerOptions, TransportOptions } from '../rooms/room.protocol';
import { AppError } from '../shared/errors';
import { LOCAL_NODE_ID, type MediaShard, type ShardPlace, type ShardPlacer } from './media-shard';
import { RecordingShard } from './recording-shard';
import { closeFarEnds, connectPipe } from './shard-pipes';
import { WebinarBalancer } from './webinar-placement';

/**
 * A webinar opens a shard on a new place once the shard its next peer would go to has this many peers. Measured with
 * bench/media/webinar-cores.bench.ts: a second router costs 2-5 % of a core (its worker wakes for every incoming
 * packet, and the piped copy), i.e. the forwarding of 4-10 viewers of a 1,000 pkt/s stream, and from about 50
 * viewers on two routers cost per packet what one does. Opening it at 25 keeps small webinars on one core and
 * spreads large ones over every core long before one is full.
 */
export const WEBINAR_SHARD_PEERS = 25;

interface Shard {
  readonly media: MediaShard;
  /** Peers placed on the shard. */
  readonly peers: Set<string>;
  /** Copies of other shards' producers by producer id: resolves once the copy can be consumed. */
  readonly copies: Map<string, Promise<void>>;
  /** The recording shard (recording-shard.ts): no peers are placed on it. */
  readonly recording: boolean;
}

/** A producer of the room on the shard of its peer. */
interface RoomProducer {
  peerId: string;
  origin: Shard;
  paused: boolean;
}

/** A room's media over shards; see the file comment. */
export class SpanningRoomMedia extends EventEmitter<RoomMediaEvents> implements RoomMedia {
  private readonly shards: Shard[] = [];
  private readonly peerShards = new Map<string, Shard>();
  private readonly producers = new Map<string, RoomProducer>();
  /** The pipe transport pair between two shards, by the pair. */
  private readonly pipes = new Map<Shard, Map<Shard, Promise<Map<Shard, string>>>>();
  private placing: Promise<unknown> = Promise.resolve();
  private readonly viewers = new WebinarBalancer<Shard>((shard) => this.placer.cpuOf(shard.media));
  private closed = false;
  private readonly lostListeners: ((routerIds: string[]) => void)[] = [];
  private lostReported = false;
  private readonly recordingShard = new RecordingShard({
    direct: () =>
      this.shards.find((s) => s.media.place.nodeId === LOCAL_NODE_ID && !s.recording)?.media ??
      (this.local && !this.closed ? undefined : this.home.media),
    open: () =>
      this.local!.createShard(this.room.meetingId, this.routerPlaces()).then(async (media) => (await this.joinShard(media, true)).media),
    close: (media) => this.removeShard(media),
  });

  private constructor(
    private readonly placer: ShardPlacer,
    private readonly room: { meetingId: string; kind: 'meeting' | 'webinar' },
    home: MediaShard,
    private readonly local?: ShardPlacer,
  ) {
    super();
    this.addShard(home, false);
  }

  /** The room's media with its home shard on the least-loaded place; `local`: this process's workers (recording-shard.ts). */
  static async create(
    placer: ShardPlacer,
    meetingId: string,
    opts: RoomMediaOptions = {},
    local?: ShardPlacer,
  ): Promise<SpanningRoomMedia> {
    const home = await placer.createShard(meetingId, []);
    return new SpanningRoomMedia(placer, { meetingId, kind: opts.kind ?? 'meeting' }, home, local);
  }

  /** Rooms' media on `placer`'s places (`local` as in create); a room whose shard was lost is reported with all its routers. */
  static provider(placer: ShardPlacer, local?: ShardPlacer): RoomMediaProvider {
    const listeners: ((routerIds: string[]) => void)[] = [];
    return {
      create: async (meetingId, options) => {
        const media = await SpanningRoomMedia.create(placer, meetingId, options, local);
        media.onLost((routerIds) => listeners.forEach((listener) => listener(routerIds)));
        return media;
      },
      onRoutersLost: (listener) => void listeners.push(listener),
    };
  }

  /** Calls `listener` once, with every router of the room, when a shard's router died (the room must move). */
  onLost(listener: (routerIds: string[]) => void): void {
    this.lostListeners.push(listener);
  }

  /** The home shard's router. */
  get routerId(): string {
    return this.home.media.routerId;
  }

  get routerIds(): string[] {
    return this.shards.map((shard) => shard.media.routerId);
  }

  /** Every shard's router offers the same codecs. */
  get rtpCapabilities(): unknown {
    return this.home.media.rtpCapabilities;
  }

  /** How many peers each shard has, home first (for tests and diagnostics). */
  peersPerShard(): number[] {
    return this.shards.map((shard) => shard.peers.size);
  }

  createTransport(peerId: string, direction: 'send' | 'recv'): Promise<TransportOptions> {
    return this.onShardOf(peerId, (shard) => shard.media.createTransport(peerId, direction));
  }

  connectTransport(peerId: string, transportId: string, dtlsParameters: unknown): Promise<void> {
    return this.shardOf(peerId).media.connectTransport(peerId, transportId, dtlsParameters);
  }

  createPlainTransport(peerId: string, direction: 'send' | 'recv', listenIp: string): Promise<PlainTransportInfo> {
    return this.onShardOf(peerId, (shard) => shard.media.createPlainTransport(peerId, direction, listenIp));
  }

  connectPlainTransport(peerId: string, transportId: string, to: PlainTransportInfo['local']): Promise<void> {
    return this.shardOf(peerId).media.connectPlainTransport(peerId, transportId, to);
  }

  restartIce(peerId: string, transportId: string): Promise<unknown> {
    return this.shardOf(peerId).media.restartIce(peerId, transportId);
  }

  /** Creates the producer on the peer's shard and resolves once every other shard has its copy. */
  async produce(peerId: string, input: ProduceInput): Promise<string> {
    const origin = this.shardOf(peerId);
    const producerId = await origin.media.produce(peerId, input);
    this.producers.set(producerId, { peerId, origin, paused: input.paused });
    try {
      await Promise.all(this.shards.map((shard) => this.pipeInto(shard, producerId)));
    } catch (error) {
      // A producer some shards cannot see would be half there: it goes, and the peer is told.
      if (this.producers.has(producerId)) closeQuietly(origin, peerId, producerId);
      this.dropProducer(producerId);
      throw error;
    }
    return producerId;
  }

  closeProducer(peerId: string, producerId: string): void {
    this.shardOf(peerId).media.closeProducer(peerId, producerId);
    this.dropProducer(producerId);
  }

  /** Pauses or resumes the producer and its copies, so consumers on every shard see producerpause/resume. */
  async setProducerPaused(peerId: string, producerId: string, paused: boolean): Promise<void> {
    await this.shardOf(peerId).media.setProducerPaused(peerId, producerId, paused);
    const producer = this.producers.get(producerId);
    if (!producer) return;
    producer.paused = paused;
    await Promise.all(
      this.shards.map(async (shard) => {
        const copy = shard.copies.get(producerId);
        if (!copy) return;
        await copy;
        // The latest state, so that quick pause/resume calls end as the last one said.
        if (shard.copies.has(producerId)) await shard.media.setProducerPaused(producer.peerId, producerId, producer.paused);
      }),
    ).catch(() => undefined); // a copy that failed or closed meanwhile has nothing to pause
  }

  async consume(peerId: string, producerId: string, rtpCapabilities: unknown): Promise<ConsumerOptions | null> {
    const shard = this.peerShards.get(peerId);
    if (this.closed || !shard) return null;
    await shard.copies.get(producerId)?.catch(() => undefined);
    return shard.media.consume(peerId, producerId, rtpCapabilities);
  }

  setConsumerPaused(peerId: string, consumerId: string, paused: boolean): Promise<void> {
    return this.shardOf(peerId).media.setConsumerPaused(peerId, consumerId, paused);
  }

  setConsumerLayers(peerId: string, consumerId: string, spatialLayer: number, temporalLayer?: number): Promise<void> {
    return this.shardOf(peerId).media.setConsumerLayers(peerId, consumerId, spatialLayer, temporalLayer);
  }

  /** Records on a shard of this process's workers, each has every producer (recording-shard.ts). */
  record(filePath: string): MediaRecording {
    return this.recordingShard.record(filePath);
  }

  /** Taps the microphones where `record` records. */
  tapMicrophones(listener: (tap: MicrophoneTap) => void): AudioTapping {
    return this.recordingShard.tapMicrophones(listener);
  }

  closePeer(peerId: string): void {
    const shard = this.peerShards.get(peerId);
    if (shard) {
      shard.media.closePeer(peerId);
      shard.peers.delete(peerId);
      this.peerShards.delete(peerId);
    }
    for (const [producerId, producer] of [...this.producers]) if (producer.peerId === peerId) this.dropProducer(producerId);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const shard of this.shards) shard.media.close();
  }

  /** RTP packets every shard's consumers have sent so far (pipes not counted), for benchmarks. */
  async packetsSentToConsumers(): Promise<number> {
    const counts = await Promise.all(
      this.shards.map((shard) => (shard.media as Partial<{ packetsSentToConsumers(): Promise<number> }>).packetsSentToConsumers?.() ?? 0),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  private get home(): Shard {
    return this.shards[0]!;
  }

  private routerPlaces(): ShardPlace[] {
    return this.shards.map((shard) => shard.media.place);
  }

  /** The peer's shard; an unplaced peer's calls go to the home shard, where its ids are unknown (not_found). */
  private shardOf(peerId: string): Shard {
    return this.peerShards.get(peerId) ?? this.home;
  }

  /**
   * Runs `create` (the peer's first transport) on the peer's shard, placing the peer first if it has none. One
   * placement at a time, each until its transport exists, so shards open one by one and a place's peer count
   * (hasRoomFor) includes the peers placed before.
   */
  private onShardOf<T>(peerId: string, create: (shard: Shard) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new AppError('conflict', 'The media server of this room is restarting; wait for mediaReset'));
    const placed = this.peerShards.get(peerId);
    if (placed) return create(placed);
    const creating = this.placing.then(async () => create(await this.place(peerId)));
    this.placing = creating.catch(() => undefined);
    return creating;
  }

  private async place(peerId: string): Promise<Shard> {
    let shard = this.peerShards.get(peerId);
    if (shard) return shard;
    const forPeers = this.shards.filter((s) => !s.recording);
    const withRoom = forPeers.filter((s) => this.placer.hasRoomFor(s.media));
    if (this.room.kind === 'webinar') {
      const next = this.viewers.pick(withRoom.map((s) => ({ shard: s, peers: s.peers.size })));
      const canOpen = forPeers.length < this.placer.placeCount();
      shard = next && (next.peers.size < WEBINAR_SHARD_PEERS || !canOpen) ? next : ((await this.openShard()) ?? next);
    } else {
      shard = withRoom[0] ?? (await this.openShard());
    }
    // No place could take a new shard: the least-loaded shard takes the peer over its cap rather than refusing it.
    shard ??= [...forPeers].sort((a, b) => a.peers.size - b.peers.size)[0]!;
    shard.peers.add(peerId);
    this.peerShards.set(peerId, shard);
    return shard;
  }

  /** A shard on a place the room does not use yet, with every producer of the room piped in; undefined when no place takes it. */
  private async openShard(): Promise<Shard | undefined> {
    const media = await this.placer.createShard(this.room.meetingId, this.routerPlaces()).catch(() => undefined);
    return media && this.joinShard(media, false);
  }

  /** Makes a new shard part of the room and pipes every producer of the room into it. */
  private async joinShard(media: MediaShard, recording: boolean): Promise<Shard> {
    if (this.closed) {
      media.close();
      throw new AppError('conflict', 'The media server of this room is restarting; wait for mediaReset');
    }
    const shard = this.addShard(media, recording);
    await Promise.all([...this.producers.keys()].map((producerId) => this.pipeInto(shard, producerId)));
    return shard;
  }

  /** Closes a shard and forgets it with its pipes, whose other ends close too (with the pipe consumers feeding them). */
  private removeShard(media: MediaShard): void {
    media.close();
    const shard = this.shards.find((s) => s.media === media);
    if (!shard) return;
    this.shards.splice(this.shards.indexOf(shard), 1);
    const pairs = [...(this.pipes.get(shard)?.values() ?? []), ...[...this.pipes.values()].flatMap((of) => of.get(shard) ?? [])];
    closeFarEnds(pairs, shard);
    this.pipes.delete(shard);
    for (const of of this.pipes.values()) of.delete(shard);
  }

  private addShard(media: MediaShard, recording: boolean): Shard {
    const shard: Shard = { media, peers: new Set(), copies: new Map(), recording };
    const home = this.shards.length === 0;
    this.shards.push(shard);
    media.on('consumerClosed', (peerId, consumerId) => this.emit('consumerClosed', peerId, consumerId));
    media.on('consumerPaused', (peerId, consumerId) => this.emit('consumerPaused', peerId, consumerId));
    media.on('consumerResumed', (peerId, consumerId) => this.emit('consumerResumed', peerId, consumerId));
    if (home) media.on('activeSpeaker', (peerId) => this.emit('activeSpeaker', peerId));
    media.on('pipedProducerClosed', (producerId) => this.dropProducer(producerId));
    media.on('lost', () => {
      if (this.closed || this.lostReported) return;
      // A lost recording shard fails its recordings and taps; the room's peers are elsewhere and stay.
      if (recording) return void (this.removeShard(media), this.recordingShard.lost(media));
      this.lostReported = true;
      for (const listener of this.lostListeners) listener(this.routerIds);
    });
    return shard;
  }

  /** The copy of a producer on `target` (none on its own shard), made once. */
  private pipeInto(target: Shard, producerId: string): Promise<void> {
    const existing = target.copies.get(producerId);
    if (existing) return existing;
    const producer = this.producers.get(producerId);
    if (!producer || producer.origin === target) return Promise.resolve();
    const copying = this.copy(producer, target, producerId);
    target.copies.set(producerId, copying);
    return copying;
  }

  private async copy(producer: RoomProducer, target: Shard, producerId: string): Promise<void> {
    const { origin } = producer;
    const live = () => this.producers.get(producerId) === producer && target.copies.has(producerId);
    try {
      const pipe = await this.pipeBetween(origin, target);
      const piped = await origin.media.pipeOut(pipe.get(origin)!, producerId);
      if (!live()) return;
      await target.media.pipeIn(pipe.get(target)!, { ...piped, paused: producer.paused });
    } catch (error) {
      // It closed while being piped: nothing to copy. A recording shard that cannot take it (being lost) costs no peer its producer.
      if (!live() || target.recording) return;
      // Its source is gone although nobody said so (it closed with its transport): forget it rather than fail the shard.
      if (error instanceof AppError && error.code === 'not_found') return this.dropProducer(producerId);
      throw error;
    }
    if (!live()) closeQuietly(target, producer.peerId, producerId);
  }

  /** The connected pipe transport pair between two shards (each end's transport id by shard), made once per pair. */
  private pipeBetween(a: Shard, b: Shard): Promise<Map<Shard, string>> {
    const ofA = this.pipes.get(a) ?? new Map<Shard, Promise<Map<Shard, string>>>();
    this.pipes.set(a, ofA);
    let pair = ofA.get(b) ?? this.pipes.get(b)?.get(a);
    if (!pair) {
      pair = connectPipe(a, b);
      ofA.set(b, pair);
      pair.catch(() => ofA.delete(b));
    }
    return pair;
  }

  /** Forgets a closed producer and closes its copies. */
  private dropProducer(producerId: string): void {
    const producer = this.producers.get(producerId);
    if (!producer) return;
    this.producers.delete(producerId);
    for (const shard of this.shards) {
      if (!shard.copies.delete(producerId)) continue;
      closeQuietly(shard, producer.peerId, producerId);
    }
  }
}

/** Closes a producer's copy on a shard; one not there (yet, or any more) is nothing to close. */
function closeQuietly(shard: Shard, peerId: string, producerId: string): void {
  try {
    shard.media.closeProducer(peerId, producerId);
  } catch {
    // not there
  }
}
