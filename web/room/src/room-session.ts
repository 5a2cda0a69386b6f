import { Device, type types } from 'mediasoup-client';
import { Emitter } from './emitter';
import { CredentialError, requestCredential } from './http-api';
import { t } from './i18n';
import { openCamera, openMicrophone } from './local-media';
import type {
  ChatMessage,
  ConsumerOptions,
  CredentialRequest,
  JoinCredential,
  LeaveReason,
  MediaSource,
  PeerInfo,
  RoomMethod,
  RoomMethods,
  RoomNotifications,
  RoomState,
  ServerNotificationFrame,
  TransportOptions,
  UnavailableReason,
  WaitingPeer,
} from './protocol';
import { RoomSocket } from './room-socket';

/** Where the session is: connecting, in the waiting room, in the room, reconnecting after a drop, or out. */
export type SessionPhase = 'connecting' | 'waiting' | 'joined' | 'reconnecting' | 'ended';

/** A remote media track arriving or going, by peer and source. */
export interface RemoteTrack {
  consumerId: string;
  peerId: string;
  source: MediaSource;
  kind: 'audio' | 'video';
  track: MediaStreamTrack;
  paused: boolean;
  simulcast: boolean;
}

/** Why the session stopped: a leave reason from the service, or a failure the page must explain. */
export type SessionEnd =
  { kind: 'left'; reason: LeaveReason } | { kind: 'unavailable'; reason: UnavailableReason } | { kind: 'error'; message: string };

/** What the session tells the UI. */
export interface SessionEventMap {
  phase: { phase: SessionPhase };
  /** Entered (or re-entered after a reconnect) the room: the UI renders this state from scratch. */
  joined: { state: RoomState };
  peerJoined: { peer: PeerInfo };
  peerLeft: { peerId: string; reason: LeaveReason };
  peerUpdated: { peer: PeerInfo };
  remoteTrack: RemoteTrack;
  remoteTrackEnded: { consumerId: string };
  remoteTrackPaused: { consumerId: string; paused: boolean };
  /** A local source changed: its track (null when stopped) and whether it is sent muted. */
  local: { source: MediaSource; track: MediaStreamTrack | null; muted: boolean };
  activeSpeaker: { peerId: string | null };
  chat: { message: ChatMessage };
  participantCount: { count: number };
  waiting: { peers: WaitingPeer[] };
  recording: { active: boolean };
  /** A request failed in a way the user should hear about. */
  notice: { message: string };
  ended: SessionEnd;
}

/** How the page joins: who it is and what it brings from the pre-join screen. */
export interface SessionOptions {
  code: string;
  request: CredentialRequest;
  camera: MediaStreamTrack | null;
  microphone: MediaStreamTrack | null;
  cameraDeviceId?: string;
  microphoneDeviceId?: string;
}

/** Receive-side statistics for tests and debugging, summed over the receive transport's inbound RTP streams. */
export interface ReceiveStats {
  peerId: string | null;
  transportId: string | null;
  audio: { bytesReceived: number; packetsReceived: number; streams: number };
  video: { bytesReceived: number; framesDecoded: number; streams: number; frameWidth: number };
}

/** Camera simulcast: three layers, a quarter, half and full resolution. */
const CAMERA_ENCODINGS: RTCRtpEncodingParameters[] = [
  { scaleResolutionDownBy: 4, maxBitrate: 100_000 },
  { scaleResolutionDownBy: 2, maxBitrate: 300_000 },
  { scaleResolutionDownBy: 1, maxBitrate: 900_000 },
];

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 3000];
const RECONNECT_GIVE_UP_MS = 120_000;

class Deferred<T> {
  resolve!: (value: T) => void;
  readonly promise = new Promise<T>((resolve) => (this.resolve = resolve));
}

/**
 * One participant's connection to a room: the signalling socket, the mediasoup-client Device, a send and
 * a receive transport, the local producers and the remote consumers. Survives socket drops (reconnects
 * with a fresh credential) and media server restarts (`mediaReset`).
 */
export class RoomSession {
  readonly events = new Emitter<SessionEventMap>();
  phase: SessionPhase = 'connecting';
  credential: JoinCredential | null = null;
  state: RoomState | null = null;
  readonly peers = new Map<string, PeerInfo>();

  private socket: RoomSocket | null = null;
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
  private reconnecting = false;

  constructor(private readonly options: SessionOptions) {
    if (options.microphone) this.tracks.microphone = options.microphone;
    if (options.camera) this.tracks.camera = options.camera;
  }

  /** The local peer's id in the room, once joined. */
  get selfId(): string | null {
    return this.state?.self.id ?? null;
  }

  /** The sources that have a producer in the room. */
  get sendingSources(): MediaSource[] {
    return [...this.producers.keys()];
  }

  /** Whether a local source is live (a track that is not muted). */
  isOn(source: MediaSource): boolean {
    return Boolean(this.tracks[source]) && !this.muted[source];
  }

  /** The live local track of `source`, or null when it is off (the waiting room previews the camera with it). */
  localTrack(source: MediaSource): MediaStreamTrack | null {
    return this.isOn(source) ? (this.tracks[source] ?? null) : null;
  }

  /** Gets a credential, connects and joins (or waits to be admitted). Rejects with `CredentialError` when refused. */
  async start(): Promise<void> {
    this.setPhase('connecting');
    await this.connect();
  }

  /** Gives up a session that failed to start: closes the socket without reconnecting; the caller keeps the tracks. */
  abort(): void {
    this.phase = 'ended';
    this.resetMedia();
    this.socket?.close();
  }

  /** Leaves the room; the service answers with `left` and closes the socket. */
  async leave(): Promise<void> {
    if (this.socket?.open && this.phase !== 'ended') {
      const ended = new Promise((resolve) => this.events.on('ended', resolve));
      await this.request('leave', {}).catch(() => undefined);
      // The `left` notification normally ends the session; a dead socket must not keep the page in the room.
      await Promise.race([ended, new Promise((resolve) => window.setTimeout(resolve, 1500))]);
    }
    this.finish({ kind: 'left', reason: 'left' });
  }

  /** Hosts: ends the meeting for everyone. */
  async endMeeting(): Promise<void> {
    await this.request('endMeeting', {});
  }

  /** Hosts: starts recording the room (everyone then gets the `recording` event). */
  async startRecording(): Promise<void> {
    await this.request('startRecording', {});
  }

  /** Hosts: stops recording; resolves once the file is finished. */
  async stopRecording(): Promise<void> {
    await this.request('stopRecording', {});
  }

  /** Hosts: admits or turns away someone in the waiting room, or removes a participant. */
  async hostAction(action: 'admit' | 'deny' | 'remove', peerId: string): Promise<void> {
    await this.request(action, { peerId });
  }

  /** Sends a chat message; resolves with the stored message. */
  async sendChat(text: string): Promise<ChatMessage> {
    return (await this.request('sendChat', { text })).message;
  }

  /** Turns the microphone on (opening it or unmuting) or off (muting: the producer is paused). */
  async setMicrophone(on: boolean): Promise<void> {
    const producer = this.producers.get('microphone');
    if (!on) {
      this.muted.microphone = true;
      if (producer && !producer.paused) {
        producer.pause();
        await this.request('pauseProducer', { producerId: producer.id }).catch(() => undefined);
      }
      this.emitLocal('microphone');
      return;
    }
    if (!this.tracks.microphone) this.tracks.microphone = await openMicrophone(this.options.microphoneDeviceId);
    this.muted.microphone = false;
    if (producer) {
      producer.resume();
      await this.request('resumeProducer', { producerId: producer.id }).catch(() => undefined);
    } else if (this.sendTransport) {
      await this.produce('microphone', this.epoch);
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
        await this.request('pauseProducer', { producerId: producer.id }).catch(() => undefined);
      }
      this.tracks.camera?.stop();
      delete this.tracks.camera;
      if (producer && !producer.closed) await producer.replaceTrack({ track: null }).catch(() => undefined);
      this.emitLocal('camera');
      return;
    }
    const track = await openCamera(this.options.cameraDeviceId);
    this.tracks.camera = track;
    this.muted.camera = false;
    if (producer && !producer.closed) {
      await producer.replaceTrack({ track });
      producer.resume();
      await this.request('resumeProducer', { producerId: producer.id }).catch(() => undefined);
    } else if (this.sendTransport) {
      await this.produce('camera', this.epoch);
    }
    this.emitLocal('camera');
  }

  /** Switches to another camera or microphone, keeping its on/off state. */
  async switchDevice(source: 'camera' | 'microphone', deviceId: string): Promise<void> {
    if (source === 'camera') this.options.cameraDeviceId = deviceId;
    else this.options.microphoneDeviceId = deviceId;
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
    if (this.sendTransport) await this.produce('screen', this.epoch);
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
      await this.request('closeProducer', { producerId: producer.id }).catch(() => undefined);
    }
  }

  /** Asks for the simulcast layer a tile of this size needs (sent only when it changes). */
  setLayer(consumerId: string, spatialLayer: number): void {
    if (this.layers.get(consumerId) === spatialLayer || !this.consumers.has(consumerId)) return;
    this.layers.set(consumerId, spatialLayer);
    void this.request('setConsumerLayers', { consumerId, spatialLayer }).catch(() => this.layers.delete(consumerId));
  }

  /** Inbound RTP totals of the receive transport. */
  async receiveStats(): Promise<ReceiveStats> {
    const result: ReceiveStats = {
      peerId: this.selfId,
      transportId: this.recvTransport?.id ?? null,
      audio: { bytesReceived: 0, packetsReceived: 0, streams: 0 },
      video: { bytesReceived: 0, framesDecoded: 0, streams: 0, frameWidth: 0 },
    };
    const transport = this.recvTransport;
    if (!transport || transport.closed) return result;
    const report = await transport.getStats();
    report.forEach(
      (s: {
        type: string;
        mid?: string;
        kind?: string;
        bytesReceived?: number;
        packetsReceived?: number;
        framesDecoded?: number;
        frameWidth?: number;
      }) => {
        // mediasoup's bandwidth probe arrives as a receiver of its own ("probator"): not media.
        if (s.type !== 'inbound-rtp' || s.mid === 'probator') return;
        if (s.kind === 'audio') {
          result.audio.bytesReceived += s.bytesReceived ?? 0;
          result.audio.packetsReceived += s.packetsReceived ?? 0;
          result.audio.streams++;
        } else if (s.kind === 'video') {
          result.video.bytesReceived += s.bytesReceived ?? 0;
          result.video.framesDecoded += s.framesDecoded ?? 0;
          result.video.frameWidth = Math.max(result.video.frameWidth, s.frameWidth ?? 0);
          result.video.streams++;
        }
      },
    );
    return result;
  }

  private setPhase(phase: SessionPhase): void {
    this.phase = phase;
    this.events.emit('phase', { phase });
  }

  private emitLocal(source: MediaSource): void {
    this.events.emit('local', { source, track: this.tracks[source] ?? null, muted: this.muted[source] });
  }

  private request<M extends RoomMethod>(method: M, data: RoomMethods[M]['data']): Promise<RoomMethods[M]['result']> {
    if (!this.socket) return Promise.reject(new Error(`${method}: not connected`));
    return this.socket.request(method, data);
  }

  private async connect(): Promise<void> {
    const credential = await requestCredential(this.options.code, this.options.request);
    this.credential = credential;
    const socket = await RoomSocket.open(credential.socket_url);
    this.socket?.close();
    this.socket = socket;
    socket.onNotification = (frame) => {
      if (socket === this.socket) this.onNotification(frame);
    };
    socket.onClose = () => {
      if (socket === this.socket) this.onSocketLost();
    };
    const { rtpCapabilities } = await socket.request('getRouterRtpCapabilities', {});
    // A new socket may reach a new router: load a fresh device for it.
    this.device = new Device();
    await this.device.load({ routerRtpCapabilities: rtpCapabilities as types.RtpCapabilities });
    await this.join();
  }

  private async join(): Promise<void> {
    const result = await this.request('join', { rtpCapabilities: this.device!.rtpCapabilities });
    if (result.status === 'waiting') {
      this.setPhase('waiting');
      return;
    }
    this.enter(result.state);
  }

  private enter(state: RoomState): void {
    const epoch = this.resetMedia();
    this.state = state;
    this.peers.clear();
    for (const peer of state.peers) this.peers.set(peer.id, peer);
    this.setPhase('joined');
    this.events.emit('joined', { state });
    for (const source of ['microphone', 'camera', 'screen'] as const) if (this.tracks[source]) this.emitLocal(source);
    void this.setUpMedia(epoch);
  }

  /** Closes transports, producers and consumers (keeping the local tracks) and starts a new media epoch. */
  private resetMedia(): number {
    this.epoch++;
    this.sendTransport?.close();
    this.recvTransport?.close();
    this.sendTransport = null;
    this.recvTransport = null;
    this.recvReady = new Deferred();
    this.producers.clear();
    for (const id of this.consumers.keys()) this.events.emit('remoteTrackEnded', { consumerId: id });
    this.consumers.clear();
    this.layers.clear();
    return this.epoch;
  }

  private async setUpMedia(epoch: number): Promise<void> {
    try {
      const recv = await this.request('createTransport', { direction: 'recv' });
      if (epoch !== this.epoch) return;
      this.recvTransport = this.createTransport('recv', recv);
      this.recvReady.resolve(this.recvTransport);
      if (!this.state?.canSendMedia) return;
      const send = await this.request('createTransport', { direction: 'send' });
      if (epoch !== this.epoch) return;
      this.sendTransport = this.createTransport('send', send);
      for (const source of ['microphone', 'camera', 'screen'] as const) {
        if (this.tracks[source] && epoch === this.epoch) await this.produce(source, epoch);
      }
    } catch (err) {
      if (epoch === this.epoch && this.phase === 'joined')
        this.events.emit('notice', { message: t('error.mediaSetup', { error: String(err) }) });
    }
  }

  private createTransport(direction: 'send' | 'recv', options: TransportOptions): types.Transport {
    const params: types.TransportOptions = {
      id: options.id,
      iceParameters: options.iceParameters as types.IceParameters,
      iceCandidates: options.iceCandidates as types.IceCandidate[],
      dtlsParameters: options.dtlsParameters as types.DtlsParameters,
      iceServers: this.credential?.ice_servers ?? [],
    };
    const transport = direction === 'send' ? this.device!.createSendTransport(params) : this.device!.createRecvTransport(params);
    transport.on('connect', ({ dtlsParameters }, callback, errback) => {
      this.request('connectTransport', { transportId: transport.id, dtlsParameters }).then(() => callback(), errback);
    });
    if (direction === 'send') {
      transport.on('produce', ({ kind, rtpParameters, appData }, callback, errback) => {
        const source = appData.source as MediaSource;
        this.request('produce', { transportId: transport.id, kind, rtpParameters, source, paused: Boolean(appData.paused) }).then(
          ({ producerId }) => callback({ id: producerId }),
          errback,
        );
      });
    }
    transport.on('connectionstatechange', (state) => {
      if (state !== 'failed' || transport.closed) return;
      this.request('restartIce', { transportId: transport.id }).then(
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
      if (epoch === this.epoch) void this.request('closeProducer', { producerId: producer.id }).catch(() => undefined);
      return;
    }
    this.producers.set(source, producer);
    if (this.muted[source]) {
      producer.pause();
      // Muted while the producer was being created: the service still thinks it is live.
      if (!paused) void this.request('pauseProducer', { producerId: producer.id }).catch(() => undefined);
    }
  }

  private onNotification(frame: ServerNotificationFrame): void {
    const n = frame as { [K in keyof RoomNotifications]: { notification: K; data: RoomNotifications[K] } }[keyof RoomNotifications];
    switch (n.notification) {
      case 'newConsumer':
        void this.consume(n.data);
        return;
      case 'consumerClosed':
        this.dropConsumer(n.data.consumerId);
        return;
      case 'consumerPaused':
      case 'consumerResumed': {
        const consumer = this.consumers.get(n.data.consumerId);
        const paused = n.notification === 'consumerPaused';
        if (consumer && !consumer.closed) {
          if (paused) consumer.pause();
          else consumer.resume();
        }
        this.events.emit('remoteTrackPaused', { consumerId: n.data.consumerId, paused });
        return;
      }
      case 'peerJoined':
        this.peers.set(n.data.peer.id, n.data.peer);
        this.events.emit('peerJoined', n.data);
        return;
      case 'peerUpdated':
        if (n.data.peer.id === this.selfId && this.state) this.state.self = n.data.peer;
        else this.peers.set(n.data.peer.id, n.data.peer);
        this.events.emit('peerUpdated', n.data);
        return;
      case 'peerLeft':
        this.peers.delete(n.data.peerId);
        this.events.emit('peerLeft', n.data);
        return;
      case 'activeSpeaker':
        this.events.emit('activeSpeaker', n.data);
        return;
      case 'chatMessage':
        this.events.emit('chat', n.data);
        return;
      case 'participantCount':
        if (this.state) this.state.participantCount = n.data.count;
        this.events.emit('participantCount', n.data);
        return;
      case 'waiting':
        if (this.state) this.state.waiting = n.data.peers;
        this.events.emit('waiting', n.data);
        return;
      case 'admitted':
        void this.join().catch((err) => this.finish({ kind: 'error', message: String(err) }));
        return;
      case 'recording':
        if (this.state) this.state.recording = n.data.active;
        this.events.emit('recording', n.data);
        return;
      case 'mediaReset': {
        if (this.phase !== 'joined') return;
        const epoch = this.resetMedia();
        void this.setUpMedia(epoch);
        return;
      }
      case 'left':
        this.finish({ kind: 'left', reason: n.data.reason });
        return;
      case 'error':
        this.events.emit('notice', { message: n.data.message });
        return;
    }
  }

  private async consume(options: ConsumerOptions): Promise<void> {
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
      this.events.emit('notice', { message: t(`error.receive.${options.source}`, { error: String(err) }) });
      return;
    }
    if (transport.closed) return;
    this.consumers.set(consumer.id, consumer);
    if (options.producerPaused) consumer.pause();
    this.events.emit('remoteTrack', {
      consumerId: consumer.id,
      peerId: options.peerId,
      source: options.source,
      kind: options.kind,
      track: consumer.track,
      paused: options.producerPaused,
      simulcast: options.type === 'simulcast',
    });
    await this.request('resumeConsumer', { consumerId: consumer.id }).catch(() => undefined);
  }

  private dropConsumer(consumerId: string): void {
    const consumer = this.consumers.get(consumerId);
    this.consumers.delete(consumerId);
    this.layers.delete(consumerId);
    consumer?.close();
    this.events.emit('remoteTrackEnded', { consumerId });
  }

  private onSocketLost(): void {
    if (this.phase === 'ended' || this.reconnecting) return;
    this.reconnecting = true;
    this.resetMedia();
    this.setPhase('reconnecting');
    void this.reconnect().finally(() => (this.reconnecting = false));
  }

  private async reconnect(): Promise<void> {
    const giveUpAt = Date.now() + RECONNECT_GIVE_UP_MS;
    for (let attempt = 0; ; attempt++) {
      const base = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!;
      await new Promise((resolve) => window.setTimeout(resolve, base + Math.random() * base * 0.3));
      if (this.isEnded()) return;
      try {
        await this.connect();
        return;
      } catch (err) {
        if (err instanceof CredentialError && err.failure.kind === 'unavailable') {
          this.finish({ kind: 'unavailable', reason: err.failure.reason });
          return;
        }
        if (err instanceof CredentialError && err.failure.kind === 'unauthorized') {
          this.finish({ kind: 'error', message: err.failure.message });
          return;
        }
        if (Date.now() > giveUpAt) {
          this.finish({ kind: 'error', message: t('error.connectionLost') });
          return;
        }
      }
    }
  }

  private isEnded(): boolean {
    return this.phase === 'ended';
  }

  /** Ends the session for good: media released, socket closed, the UI told why. */
  private finish(end: SessionEnd): void {
    if (this.phase === 'ended') return;
    this.setPhase('ended');
    this.resetMedia();
    for (const source of ['microphone', 'camera', 'screen'] as const) {
      this.tracks[source]?.stop();
      delete this.tracks[source];
    }
    this.socket?.close();
    this.events.emit('ended', end);
  }
}
