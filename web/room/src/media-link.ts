import { Device, type types } from 'mediasoup-client';
import type { Emitter } from './emitter';
import { t } from './i18n';
import { openCamera, openMicrophone } from './local-media';
import { sumInboundRtp, type ReceiveStats } from './receive-stats';
import type { ConsumerOptions, MediaSource, RoomMethod, RoomMethods, TransportOptions } from './protocol';
import type { SessionEventMap } from './session-events';

/** Sends one request on the session's current socket. */
export type RoomRequest = <M extends RoomMethod>(method: M, data: RoomMethods[M]['data']) => Promise<RoomMethods[M]['result']>;

/** What the media link needs from its session. */
export interface MediaLinkDeps {
  request: RoomRequest;
  events: Emitter<SessionEventMap>;
  /** The ICE servers of the current credential. */
  iceServers(): RTCIceServer[];
  /** Whether the session is in the room (a failed media set-up is reported only then). */
  isJoined(): boolean;
  camera: MediaStreamTrack | null;
  microphone: MediaStreamTrack | null;
  cameraDeviceId?: string;
  microphoneDeviceId?: string;
}

/** Camera simulcast: three layers, a quarter, half and full resolution. */
const CAMERA_ENCODINGS: RTCRtpEncodingParameters[] = [
  { scaleResolutionDownBy: 4, maxBitrate: 100_000 },
  { scaleResolutionDownBy: 2, maxBitrate: 300_000 },
  { scaleResolutionDownBy: 1, maxBitrate: 900_000 },
];

const SOURCES = ['microphone', 'camera', 'screen'] as const;

class Deferred<T> {
  resolve!: (value: T) => void;
  readonly promise = new Promise<T>((resolve) => (this.resolve = resolve));
}

/**
 * The session's media: the mediasoup-client Device, a send and a receive transport, the local tracks and
 * their producers, the remote consumers. Each (re)entry into the room starts a new epoch; work of an older
 * epoch that finishes late is dropped.
 */
export class MediaLink {
  private device: Device | null = null;
  private sendTransport: types.Transport | null = null;
  private recvTransport: types.Transport | null = null;
  private recvReady = new Deferred<types.Transport>();
  private epoch = 0;
  private readonly producers = new Map<MediaSource, types.Producer>();
  private readonly producing = new Set<MediaSource>();
  private readonly consumers = new Map<string, types.Consumer>();
  private readonly layers = new Map<string, number>();
  private readonly tracks: Partial<Record<MediaSource, MediaStreamTrack>> = {};
  private readonly muted: Record<MediaSource, boolean> = { microphone: false, camera: false, screen: false };

  constructor(private readonly deps: MediaLinkDeps) {
    if (deps.microphone) this.tracks.microphone = deps.microphone;
    if (deps.camera) this.tracks.camera = deps.camera;
  }

  /** The device's receive capabilities, sent with `join`. */
  get rtpCapabilities(): types.RtpCapabilities {
    return this.device!.rtpCapabilities;
  }

  /** The sources that have a producer in the room. */
  get sendingSources(): MediaSource[] {
    return [...this.producers.keys()];
  }

  /** Whether a local source is live (a track that is not muted). */
  isOn(source: MediaSource): boolean {
    return Boolean(this.tracks[source]) && !this.muted[source];
  }

  /** The live local track of `source`, or null when it is off. */
  localTrack(source: MediaSource): MediaStreamTrack | null {
    return this.isOn(source) ? (this.tracks[source] ?? null) : null;
  }

  /** Loads a fresh device for the router behind a new socket. */
  async load(routerRtpCapabilities: unknown): Promise<void> {
    this.device = new Device();
    await this.device.load({ routerRtpCapabilities: routerRtpCapabilities as types.RtpCapabilities });
  }

  /** Entered the room (after `reset`): reports the local sources, then creates the epoch's transports and producers. */
  start(epoch: number, canSendMedia: boolean): void {
    for (const source of SOURCES) if (this.tracks[source]) this.emitLocal(source);
    void this.setUp(epoch, canSendMedia);
  }

  /** The media server restarted: the same room over new transports. */
  restart(canSendMedia: boolean): void {
    void this.setUp(this.reset(), canSendMedia);
  }

  /** Closes transports, producers and consumers (keeping the local tracks) and starts a new media epoch. */
  reset(): number {
    this.epoch++;
    this.sendTransport?.close();
    this.recvTransport?.close();
    this.sendTransport = null;
    this.recvTransport = null;
    this.recvReady = new Deferred();
    this.producers.clear();
    for (const id of this.consumers.keys()) this.deps.events.emit('remoteTrackEnded', { consumerId: id });
    this.consumers.clear();
    this.layers.clear();
    return this.epoch;
  }

  /** Releases everything for good, the local tracks too. */
  close(): void {
    this.reset();
    for (const source of SOURCES) {
      this.tracks[source]?.stop();
      delete this.tracks[source];
    }
  }

  /** Turns the microphone on (opening it or unmuting) or off (muting: the producer is paused). */
  async setMicrophone(on: boolean): Promise<void> {
    const producer = this.producers.get('microphone');
    if (!on) {
      this.muted.microphone = true;
      if (producer && !producer.paused) {
        producer.pause();
        await this.deps.request('pauseProducer', { producerId: producer.id }).catch(() => undefined);
      }
      this.emitLocal('microphone');
      return;
    }
    if (!this.tracks.microphone) this.tracks.microphone = await openMicrophone(this.deps.microphoneDeviceId);
    this.muted.microphone = false;
    if (producer) {
      producer.resume();
      await this.deps.request('resumeProducer', { producerId: producer.id }).catch((err: unknown) => this.refused('microphone', err));
    } else if (this.sendTransport) {
      await this.produce('microphone', this.epoch).catch((err: unknown) => this.refused('microphone', err));
    }
    this.emitLocal('microphone');
  }

  /** Turns the camera on or off; off pauses the producer and releases the camera (its light goes out). */
  async setCamera(on: boolean): Promise<void> {
    const producer = this.producers.get('camera');
    if (!on) {
      this.muted.camera = true;
      if (producer && !producer.paused) {
        producer.pause();
        await this.deps.request('pauseProducer', { producerId: producer.id }).catch(() => undefined);
      }
      this.tracks.camera?.stop();
      delete this.tracks.camera;
      if (producer && !producer.closed) await producer.replaceTrack({ track: null }).catch(() => undefined);
      this.emitLocal('camera');
      return;
    }
    const track = await openCamera(this.deps.cameraDeviceId);
    this.tracks.camera = track;
    this.muted.camera = false;
    if (producer && !producer.closed) {
      await producer.replaceTrack({ track });
      producer.resume();
      await this.deps.request('resumeProducer', { producerId: producer.id }).catch((err: unknown) => this.refused('camera', err));
    } else if (this.sendTransport) {
      await this.produce('camera', this.epoch).catch((err: unknown) => this.refused('camera', err));
    }
    this.emitLocal('camera');
  }

  /** Switches to another camera or microphone, keeping its on/off state. */
  async switchDevice(source: 'camera' | 'microphone', deviceId: string): Promise<void> {
    if (source === 'camera') this.deps.cameraDeviceId = deviceId;
    else this.deps.microphoneDeviceId = deviceId;
    const old = this.tracks[source];
    if (!old || (source === 'camera' && this.muted.camera)) return;
    const track = source === 'camera' ? await openCamera(deviceId) : await openMicrophone(deviceId);
    this.tracks[source] = track;
    const producer = this.producers.get(source);
    if (producer && !producer.closed) await producer.replaceTrack({ track });
    if (source === 'microphone' && this.muted.microphone) track.enabled = false;
    old.stop();
    this.emitLocal(source);
  }

  /** Starts sharing `track` (from getDisplayMedia); stopping it in the browser's own UI stops the share. */
  async startScreen(track: MediaStreamTrack): Promise<void> {
    this.tracks.screen = track;
    this.muted.screen = false;
    track.addEventListener('ended', () => void this.stopScreen());
    if (this.sendTransport) await this.produce('screen', this.epoch).catch((err: unknown) => this.refused('screen', err));
    this.emitLocal('screen');
  }

  /** Stops sharing the screen. */
  async stopScreen(): Promise<void> {
    const track = this.tracks.screen;
    if (!track) return;
    delete this.tracks.screen;
    track.stop();
    const producer = this.producers.get('screen');
    this.producers.delete('screen');
    this.emitLocal('screen');
    if (producer) {
      producer.close();
      await this.deps.request('closeProducer', { producerId: producer.id }).catch(() => undefined);
    }
  }

  /** A host muted the microphone or stopped the camera or screen share (the service paused or closed it): follow locally. */
  async moderated(source: MediaSource): Promise<void> {
    if (source === 'microphone') return this.setMicrophone(false);
    if (source === 'screen') return this.stopScreen();
    this.producers.get('camera')?.close();
    this.producers.delete('camera');
    await this.setCamera(false);
  }

  /** Asks for the simulcast layer a tile of this size needs (sent only when it changes). */
  setLayer(consumerId: string, spatialLayer: number): void {
    if (this.layers.get(consumerId) === spatialLayer || !this.consumers.has(consumerId)) return;
    this.layers.set(consumerId, spatialLayer);
    void this.deps.request('setConsumerLayers', { consumerId, spatialLayer }).catch(() => this.layers.delete(consumerId));
  }

  /** Inbound RTP totals of the receive transport. */
  async receiveStats(peerId: string | null): Promise<ReceiveStats> {
    const transport = this.recvTransport;
    const report = transport && !transport.closed ? await transport.getStats() : null;
    const stats: object[] = [];
    report?.forEach((s: object) => stats.push(s));
    return { peerId, transportId: transport?.id ?? null, ...sumInboundRtp(stats) };
  }

  /** A remote producer reached this peer: receives it and resumes it on the service. */
  async consume(options: ConsumerOptions): Promise<void> {
    const transport = await this.recvReady.promise;
    if (transport.closed) return;
    let consumer: types.Consumer;
    try {
      consumer = await transport.consume({
        id: options.id,
        producerId: options.producerId,
        kind: options.kind,
        rtpParameters: options.rtpParameters as types.RtpParameters,
        appData: { peerId: options.peerId, source: options.source },
      });
    } catch (err) {
      if (transport.closed) return;
      // eslint-disable-next-line no-console -- a real failure, worth the browser console
      console.warn('consume failed', options, err);
      this.deps.events.emit('notice', { message: t(`error.receive.${options.source}`, { error: String(err) }) });
      return;
    }
    if (transport.closed) return;
    this.consumers.set(consumer.id, consumer);
    if (options.producerPaused) consumer.pause();
    this.deps.events.emit('remoteTrack', {
      consumerId: consumer.id,
      peerId: options.peerId,
      source: options.source,
      kind: options.kind,
      track: consumer.track,
      paused: options.producerPaused,
      simulcast: options.type === 'simulcast',
    });
    await this.deps.request('resumeConsumer', { consumerId: consumer.id }).catch(() => undefined);
  }

  /** The remote producer paused or resumed. */
  pauseConsumer(consumerId: string, paused: boolean): void {
    const consumer = this.consumers.get(consumerId);
    if (consumer && !consumer.closed) {
      if (paused) consumer.pause();
      else consumer.resume();
    }
    this.deps.events.emit('remoteTrackPaused', { consumerId, paused });
  }

  /** The remote producer went away. */
  dropConsumer(consumerId: string): void {
    const consumer = this.consumers.get(consumerId);
    this.consumers.delete(consumerId);
    this.layers.delete(consumerId);
    consumer?.close();
    this.deps.events.emit('remoteTrackEnded', { consumerId });
  }

  /** The service refused to start or unmute `source` (a host's permissions): turn it off again and pass the refusal on. */
  private async refused(source: MediaSource, err: unknown): Promise<never> {
    if (source === 'screen') await this.stopScreen();
    else if (source === 'camera') await this.setCamera(false);
    else await this.setMicrophone(false);
    throw err;
  }

  private emitLocal(source: MediaSource): void {
    this.deps.events.emit('local', { source, track: this.tracks[source] ?? null, muted: this.muted[source] });
  }

  private async setUp(epoch: number, canSendMedia: boolean): Promise<void> {
    try {
      const recv = await this.deps.request('createTransport', { direction: 'recv' });
      if (epoch !== this.epoch) return;
      this.recvTransport = this.createTransport('recv', recv);
      this.recvReady.resolve(this.recvTransport);
      if (!canSendMedia) return;
      const send = await this.deps.request('createTransport', { direction: 'send' });
      if (epoch !== this.epoch) return;
      this.sendTransport = this.createTransport('send', send);
      for (const source of SOURCES) {
        if (this.tracks[source] && epoch === this.epoch) await this.produce(source, epoch);
      }
    } catch (err) {
      if (epoch === this.epoch && this.deps.isJoined())
        this.deps.events.emit('notice', { message: t('error.mediaSetup', { error: String(err) }) });
    }
  }

  private createTransport(direction: 'send' | 'recv', options: TransportOptions): types.Transport {
    const { request } = this.deps;
    const params: types.TransportOptions = {
      id: options.id,
      iceParameters: options.iceParameters as types.IceParameters,
      iceCandidates: options.iceCandidates as types.IceCandidate[],
      dtlsParameters: options.dtlsParameters as types.DtlsParameters,
      iceServers: this.deps.iceServers(),
    };
    const transport = direction === 'send' ? this.device!.createSendTransport(params) : this.device!.createRecvTransport(params);
    transport.on('connect', ({ dtlsParameters }, callback, errback) => {
      request('connectTransport', { transportId: transport.id, dtlsParameters }).then(() => callback(), errback);
    });
    if (direction === 'send') {
      transport.on('produce', ({ kind, rtpParameters, appData }, callback, errback) => {
        const source = appData.source as MediaSource;
        request('produce', { transportId: transport.id, kind, rtpParameters, source, paused: Boolean(appData.paused) }).then(
          ({ producerId }) => callback({ id: producerId }),
          errback,
        );
      });
    }
    transport.on('connectionstatechange', (state) => {
      if (state !== 'failed' || transport.closed) return;
      request('restartIce', { transportId: transport.id }).then(
        ({ iceParameters }) => transport.restartIce({ iceParameters: iceParameters as types.IceParameters }),
        () => undefined,
      );
    });
    return transport;
  }

  private async produce(source: MediaSource, epoch: number): Promise<void> {
    const track = this.tracks[source];
    const transport = this.sendTransport;
    if (!track || !transport || this.producers.has(source) || this.producing.has(source)) return;
    this.producing.add(source);
    try {
      await this.produceOn(transport, source, track, epoch);
    } finally {
      this.producing.delete(source);
    }
  }

  private async produceOn(transport: types.Transport, source: MediaSource, track: MediaStreamTrack, epoch: number): Promise<void> {
    const paused = this.muted[source];
    const options: types.ProducerOptions = { track, stopTracks: false, appData: { source, paused } };
    if (source === 'camera') {
      options.encodings = CAMERA_ENCODINGS;
      options.codecOptions = { videoGoogleStartBitrate: 1000 };
    } else if (source === 'microphone') {
      options.codecOptions = { opusFec: true, opusDtx: true };
    }
    const producer = await transport.produce(options);
    if (epoch !== this.epoch || this.tracks[source] !== track) {
      producer.close();
      if (epoch === this.epoch) void this.deps.request('closeProducer', { producerId: producer.id }).catch(() => undefined);
      return;
    }
    this.producers.set(source, producer);
    if (this.muted[source]) {
      producer.pause();
      // Muted while the producer was being created: the service still thinks it is live.
      if (!paused) void this.deps.request('pauseProducer', { producerId: producer.id }).catch(() => undefined);
    }
  }
}
