import type { RecordedTrack, TrackOwner } from '../recordings/recordings.service';
import type { ConsumerOptions, MediaSource, TransportOptions } from './room.protocol';

export type { RecordedTrack, TrackOwner };

/** What the media server tells a room about the media of its peers. */
export interface RoomMediaEvents {
  /** A consumer closed because its producer did (the producer's peer stopped sending or left). */
  consumerClosed: [peerId: string, consumerId: string];
  /** The producer behind a consumer was paused or resumed. */
  consumerPaused: [peerId: string, consumerId: string];
  consumerResumed: [peerId: string, consumerId: string];
  /** The loudest producer's peer changed. */
  activeSpeaker: [peerId: string | null];
}

/** A new producer's source and kind, as the room records it. */
export interface ProduceInput {
  transportId: string;
  kind: 'audio' | 'video';
  rtpParameters: unknown;
  source: MediaSource;
  paused: boolean;
  /** Who sends it (the room sets this, never the client): a recording names the track after them. */
  owner?: TrackOwner;
}

/** A plain RTP transport and the UDP address it receives on. */
export interface PlainTransportInfo {
  id: string;
  local: { ip: string; port: number };
}

/**
 * A room's media on the SFU (one router), as the room sees it: every object belongs to a peer, and every
 * call names the peer it acts for, so a peer can never touch another peer's transports, producers or
 * consumers (those ids are `not_found` for it). Implemented in media/ on mediasoup.
 */
export interface RoomMedia {
  /** The room's (home) router id: a lost room is reported with every router it spans, this one among them. */
  readonly routerId: string;
  /** The router's RTP capabilities, for the client's Device.load. */
  readonly rtpCapabilities: unknown;
  createTransport(peerId: string, direction: 'send' | 'recv'): Promise<TransportOptions>;
  connectTransport(peerId: string, transportId: string, dtlsParameters: unknown): Promise<void>;
  /**
   * A plain RTP transport (no ICE/DTLS) for a peer that is a server-side program: a recorder consuming
   * the room, or a benchmark. A send transport learns its sender's address from the first packet; a
   * receive transport sends to the address given to `connectPlainTransport`.
   */
  createPlainTransport(peerId: string, direction: 'send' | 'recv', listenIp: string): Promise<PlainTransportInfo>;
  connectPlainTransport(peerId: string, transportId: string, to: PlainTransportInfo['local']): Promise<void>;
  restartIce(peerId: string, transportId: string): Promise<unknown>;
  /** Creates a producer on the peer's send transport; returns its id. */
  produce(peerId: string, input: ProduceInput): Promise<string>;
  closeProducer(peerId: string, producerId: string): void;
  setProducerPaused(peerId: string, producerId: string, paused: boolean): Promise<void>;
  /** A paused consumer of `producerId` on the peer's receive transport, or null when the peer cannot receive it (no receive transport, codecs). */
  consume(peerId: string, producerId: string, rtpCapabilities: unknown): Promise<ConsumerOptions | null>;
  setConsumerPaused(peerId: string, consumerId: string, paused: boolean): Promise<void>;
  setConsumerLayers(peerId: string, consumerId: string, spatialLayer: number, temporalLayer?: number): Promise<void>;
  /**
   * Starts recording the room's media, every track, into a Matroska file at `filePath` (media/recorder.ts says how);
   * conflict when recording is unavailable (no ffmpeg). Producers created later join it as they come.
   */
  record(filePath: string): MediaRecording;
  /**
   * Decodes every microphone of the room, present and future, to PCM for live captions: `listener` gets each
   * microphone's tap as it starts. Conflict when decoding is unavailable (no ffmpeg).
   */
  tapMicrophones(listener: (tap: MicrophoneTap) => void): AudioTapping;
  /** Closes everything of one peer (transports, and with them its producers and consumers). */
  closePeer(peerId: string): void;
  /** Closes the router and everything on it; idempotent. */
  close(): void;
  on<E extends keyof RoomMediaEvents>(event: E, listener: (...args: RoomMediaEvents[E]) => void): unknown;
}

/** What a finished recording's file holds. */
export interface RecordedMedia {
  sizeBytes: number;
  durationSeconds: number;
  contentType: string;
  audioTracks: number;
  videoTracks: number;
  /** Whose microphone each audio track of the file carries, in the file's audio track order (null: a spare track nobody used). */
  audioTrackOwners: (TrackOwner | null)[];
  /** Every track of the file: audio first, then video, each with its owner, source and start in the file. */
  tracks: RecordedTrack[];
}

/** A recording of a room's media in progress. */
export interface MediaRecording {
  /** Finishes the file and measures it; rejects (AppError) when nothing usable was recorded. */
  stop(): Promise<RecordedMedia>;
  /** Called once when the recording fails while it runs (the recorder process died); `stop` is then not needed. */
  onFailure(listener: (error: Error) => void): void;
}

/** One microphone decoded live: 16 kHz mono signed 16-bit little-endian PCM, as it arrives. */
export interface MicrophoneTap {
  readonly producerId: string;
  /** Whose microphone it is (absent for a sender that is no participant). */
  readonly owner: TrackOwner | undefined;
  onPcm(listener: (pcm: Buffer) => void): void;
  /** Called once when the tap ends (the microphone stopped, its peer left, the tapping stopped). */
  onEnd(listener: () => void): void;
}

/** The live decoding of a room's microphones, until `stop`. */
export interface AudioTapping {
  stop(): void;
  /** Called once when the room's media closed (the tapping ended with it). */
  onClosed(listener: () => void): void;
}

/** What kind of room the media is for: a webinar's viewers spread over every worker. */
export interface RoomMediaOptions {
  kind?: 'meeting' | 'webinar';
}

/** Creates rooms' media on the worker pool and reports when a worker took rooms' media down with it. */
export interface RoomMediaProvider {
  create(meetingId: string, options?: RoomMediaOptions): Promise<RoomMedia>;
  /** Calls `listener` with the router ids that died with a worker. */
  onRoutersLost(listener: (routerIds: string[]) => void): void;
}
