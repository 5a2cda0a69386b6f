import { Emitter } from './emitter';
import { CredentialError, requestCredential } from './http-api';
import { t } from './i18n';
import { MediaLink } from './media-link';
import type {
  BreakoutMove,
  ChatMessage,
  CredentialRequest,
  JoinCredential,
  MediaSource,
  PeerInfo,
  RoomMethod,
  RoomMethods,
  RoomNotifications,
  RoomState,
  ServerNotificationFrame,
} from './protocol';
import type { ReceiveStats } from './receive-stats';
import { reconnectDelay } from './reconnect-delay';
import { RoomSocket } from './room-socket';
import type { SessionEnd, SessionEventMap, SessionPhase } from './session-events';

/** How the page joins: who it is and what it brings from the pre-join screen. */
export interface SessionOptions {
  code: string;
  request: CredentialRequest;
  camera: MediaStreamTrack | null;
  microphone: MediaStreamTrack | null;
  cameraDeviceId?: string;
  microphoneDeviceId?: string;
}

const RECONNECT_GIVE_UP_MS = 120_000;

/**
 * One participant's connection to a room: the signalling socket, the phases (connecting, waiting, joined,
 * reconnecting, ended) and the room's state; the media (device, transports, producers, consumers) is its
 * `MediaLink`. Survives socket drops (reconnects with a fresh credential) and media server restarts (`mediaReset`).
 */
export class RoomSession {
  readonly events = new Emitter<SessionEventMap>();
  phase: SessionPhase = 'connecting';
  credential: JoinCredential | null = null;
  state: RoomState | null = null;
  readonly peers = new Map<string, PeerInfo>();

  private socket: RoomSocket | null = null;
  private readonly media: MediaLink;
  private reconnecting = false;
  /** The breakout room the page is in, or null in the main room. */
  private breakout: { id: string; name: string } | null = null;

  constructor(private readonly options: SessionOptions) {
    this.media = new MediaLink({
      request: (method, data) => this.request(method, data),
      events: this.events,
      iceServers: () => this.credential?.ice_servers ?? [],
      isJoined: () => this.phase === 'joined',
      camera: options.camera,
      microphone: options.microphone,
      cameraDeviceId: options.cameraDeviceId,
      microphoneDeviceId: options.microphoneDeviceId,
    });
  }

  /** The local peer's id in the room, once joined. */
  get selfId(): string | null {
    return this.state?.self.id ?? null;
  }

  /** The sources that have a producer in the room. */
  get sendingSources(): MediaSource[] {
    return this.media.sendingSources;
  }

  /** Whether a local source is live (a track that is not muted). */
  isOn(source: MediaSource): boolean {
    return this.media.isOn(source);
  }

  /** The live local track of `source`, or null when it is off (the waiting room previews the camera with it). */
  localTrack(source: MediaSource): MediaStreamTrack | null {
    return this.media.localTrack(source);
  }

  /** Gets a credential, connects and joins (or waits to be admitted). Rejects with `CredentialError` when refused. */
  async start(): Promise<void> {
    this.setPhase('connecting');
    await this.connect();
  }

  /** Gives up a session that failed to start: closes the socket without reconnecting; the caller keeps the tracks. */
  abort(): void {
    this.phase = 'ended';
    this.media.reset();
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
  setMicrophone(on: boolean): Promise<void> {
    return this.media.setMicrophone(on);
  }

  /** Turns the camera on or off; off pauses the producer and releases the camera (its light goes out). */
  setCamera(on: boolean): Promise<void> {
    return this.media.setCamera(on);
  }

  /** Switches to another camera or microphone, keeping its on/off state. */
  switchDevice(source: 'camera' | 'microphone', deviceId: string): Promise<void> {
    return this.media.switchDevice(source, deviceId);
  }

  /** Starts sharing `track` (from getDisplayMedia); stopping it in the browser's own UI stops the share. */
  startScreen(track: MediaStreamTrack): Promise<void> {
    return this.media.startScreen(track);
  }

  /** Stops sharing the screen. */
  stopScreen(): Promise<void> {
    return this.media.stopScreen();
  }

  /** Asks for the simulcast layer a tile of this size needs (sent only when it changes). */
  setLayer(consumerId: string, spatialLayer: number): void {
    this.media.setLayer(consumerId, spatialLayer);
  }

  /** Inbound RTP totals of the receive transport. */
  receiveStats(): Promise<ReceiveStats> {
    return this.media.receiveStats(this.selfId);
  }

  /** Moves into a breakout room, or back to the main room (`null`): media is set up again on that room's router. */
  async moveToBreakout(room: string | null): Promise<void> {
    await this.changeRoom(await this.request('moveToBreakout', { room }));
  }

  /** Sends one signalling request (features call their own methods with it: polls, breakout rooms). */
  call<M extends RoomMethod>(method: M, data: RoomMethods[M]['data']): Promise<RoomMethods[M]['result']> {
    return this.request(method, data);
  }

  private async changeRoom(move: BreakoutMove, reconnected = false): Promise<void> {
    await this.media.load(move.rtpCapabilities);
    this.enter(move.state as RoomState);
    this.breakout = move.room;
    this.events.emit('breakoutMoved', { room: move.room, ...(reconnected ? { reconnected } : {}) });
  }

  private setPhase(phase: SessionPhase): void {
    this.phase = phase;
    this.events.emit('phase', { phase });
  }

  private request<M extends RoomMethod>(method: M, data: RoomMethods[M]['data']): Promise<RoomMethods[M]['result']> {
    if (!this.socket) return Promise.reject(new Error(`${method}: not connected`));
    return this.socket.request(method, data);
  }

  private async connect(): Promise<void> {
    // Reconnecting, a named guest shows their last credential and stays the same person (a locked meeting lets them back).
    const { request } = this.options;
    const plainGuest = !request.host && !request.invite && !request.embed;
    const rejoin = plainGuest && this.credential ? { ...request, rejoin: this.credential.credential } : request;
    const credential = await requestCredential(this.options.code, rejoin);
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
    await this.media.load(rtpCapabilities);
    await this.join();
  }

  private async join(): Promise<void> {
    const result = await this.request('join', { rtpCapabilities: this.media.rtpCapabilities });
    if (result.status === 'waiting') {
      this.setPhase('waiting');
      return;
    }
    // Back after a dropped socket in a breakout room: the service put this person in it again.
    if (result.breakout) return this.changeRoom(result.breakout, true);
    this.enter(result.state);
    // The breakout rooms closed while the socket was down: the person is back in the main room.
    if (this.breakout) this.events.emit('breakoutMoved', { room: (this.breakout = null) });
  }

  /** Tests and debugging: drops the signalling socket as a network blip would (the session reconnects on its own). */
  dropSocket(): void {
    this.socket?.close();
  }

  private enter(state: RoomState): void {
    const epoch = this.media.reset();
    this.state = state;
    this.peers.clear();
    for (const peer of state.peers) this.peers.set(peer.id, peer);
    this.setPhase('joined');
    this.events.emit('joined', { state });
    this.media.start(epoch, state.canSendMedia);
  }

  private onNotification(frame: ServerNotificationFrame): void {
    const n = frame as { [K in keyof RoomNotifications]: { notification: K; data: RoomNotifications[K] } }[keyof RoomNotifications];
    switch (n.notification) {
      case 'newConsumer':
        void this.media.consume(n.data);
        return;
      case 'consumerClosed':
        this.media.dropConsumer(n.data.consumerId);
        return;
      case 'consumerPaused':
      case 'consumerResumed':
        this.media.pauseConsumer(n.data.consumerId, n.notification === 'consumerPaused');
        return;
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
      case 'captions':
        if (this.state) this.state.captions = n.data.active;
        this.events.emit('captions', n.data);
        return;
      case 'caption':
        this.events.emit('caption', n.data);
        return;
      case 'breakouts':
      case 'breakoutMessage':
        this.events.emit(n.notification, n.data as never);
        return;
      case 'breakoutMoved':
        void this.changeRoom(n.data).catch((err) => this.events.emit('notice', { message: String(err) }));
        return;
      case 'pollOpened':
      case 'pollResults':
      case 'pollClosed':
        this.events.emit('poll', { change: n.notification, poll: n.data.poll });
        return;
      case 'hands':
        if (this.state) this.state.hands = n.data.hands;
        this.events.emit('hands', n.data);
        return;
      case 'permissions':
        if (this.state) this.state.permissions = n.data.permissions;
        this.events.emit('permissions', n.data);
        return;
      case 'locked':
        if (this.state) this.state.locked = n.data.locked;
        this.events.emit('locked', n.data);
        return;
      case 'moderated':
        // The service already paused or closed the producer: follow it here so the page shows the truth.
        void this.media.moderated(n.data.source).finally(() => this.events.emit('moderated', n.data));
        return;
      case 'reaction':
      case 'unmuteRequested':
        this.events.emit(n.notification, n.data as never);
        return;
      case 'mediaReset':
        if (this.phase === 'joined') this.media.restart(this.state?.canSendMedia ?? false);
        return;
      case 'left':
        this.finish({ kind: 'left', reason: n.data.reason });
        return;
      case 'error':
        this.events.emit('notice', { message: n.data.message });
        return;
    }
  }

  private onSocketLost(): void {
    if (this.phase === 'ended' || this.reconnecting) return;
    this.reconnecting = true;
    this.media.reset();
    this.setPhase('reconnecting');
    void this.reconnect().finally(() => (this.reconnecting = false));
  }

  private async reconnect(): Promise<void> {
    const giveUpAt = Date.now() + RECONNECT_GIVE_UP_MS;
    for (let attempt = 0; ; attempt++) {
      await new Promise((resolve) => window.setTimeout(resolve, reconnectDelay(attempt)));
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
    this.media.close();
    this.socket?.close();
    this.events.emit('ended', end);
  }
}
