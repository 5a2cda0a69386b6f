/**
 * A room's media may span several routers: on the workers of this process and on media nodes reached through
 * Redis. Each router holds a shard of the room (the peers placed on it) and a copy of every producer of the
 * room's other shards, piped in over a pair of PipeTransports, so every peer can consume every producer on its
 * own router. These are the contracts between the room-wide media (media/spanning-room-media.ts), the shards on
 * local workers (media/mediasoup-room-media.ts) and the shards on media nodes (media/nodes/).
 */
import type { RoomMedia, RoomMediaEvents, TrackOwner } from '../rooms/room-media.interface';
import type { MediaSource } from '../rooms/room.protocol';
import type { CpuReading } from './webinar-placement';

/** A UDP address a pipe transport receives on (the node's announced address for a remote one). */
export interface PipeAddress {
  ip: string;
  port: number;
}

/** One end of a pipe between two shards' routers. */
export interface PipeEnd {
  transportId: string;
  local: PipeAddress;
}

/** A producer as it crosses a pipe: what the receiving shard needs to create its copy under the same id. */
export interface PipedProducer {
  producerId: string;
  /** The peer that sends it, on its own shard; the copy is owned by that peer too. */
  peerId: string;
  kind: 'audio' | 'video';
  /** The pipe consumer's RTP parameters (mediasoup's `pipeConsumer.rtpParameters`). */
  rtpParameters: unknown;
  paused: boolean;
  source: MediaSource;
  owner?: TrackOwner;
}

/** The node id of this process's own workers as a place. */
export const LOCAL_NODE_ID = 'local';

/** Where a shard runs, for placement and for /healthz. */
export interface ShardPlace {
  /** LOCAL_NODE_ID for this process's workers, else the media node's id. */
  nodeId: string;
  /** The worker slot on that node. */
  slot: number;
}

/** What a shard reports besides the room's media events. */
export interface MediaShardEvents {
  /** A producer piped out of this shard closed (its peer left or stopped it): close its copies elsewhere. */
  pipedProducerClosed: [producerId: string];
  /** The shard's router died with its worker or node; the room must move. */
  lost: [];
}

/** Every event a shard emits. */
export type ShardEvents = RoomMediaEvents & MediaShardEvents;

/**
 * One router's share of a room: the room's media operations for the peers placed on it, plus the pipe
 * operations that copy producers between routers. Piped-in producers keep their id and their sender's
 * peerId, so `consume`, `closeProducer` and `setProducerPaused` treat them like the sender's own, and
 * recordings, microphone taps and the active-speaker observer of the shard see them.
 */
export interface MediaShard extends RoomMedia {
  readonly place: ShardPlace;
  /** Peers with a transport on this shard (for placement). */
  peerCount(): number;
  /** A pipe transport on this shard's router, listening on the shard's pipe address. */
  createPipeTransport(): Promise<PipeEnd>;
  connectPipeTransport(transportId: string, remote: PipeAddress): Promise<void>;
  /** Closes a pipe transport and what flows through it (the shard at its other end closed); one not there is nothing to close. */
  closePipeTransport(transportId: string): void;
  /** Consumes one of this shard's producers (own or piped in) on the pipe transport. */
  pipeOut(transportId: string, producerId: string): Promise<PipedProducer>;
  /** Creates the copy of another shard's producer on the pipe transport. */
  pipeIn(transportId: string, producer: PipedProducer): Promise<void>;
  on<E extends keyof ShardEvents>(event: E, listener: (...args: ShardEvents[E]) => void): unknown;
}

/** Where new shards can go: this process's workers, media nodes, or both. */
export interface ShardPlacer {
  /**
   * A new shard for the meeting on the least-loaded place with room left (by CPU and consumers), avoiding
   * `avoid` (the places the room already has) when another place has room; rejects when none has room.
   */
  createShard(meetingId: string, avoid: readonly ShardPlace[]): Promise<MediaShard>;
  /** False when the shard's place is full (`SVC_NODE_MAX_PEERS`): new peers of its room go elsewhere. */
  hasRoomFor(shard: MediaShard): boolean;
  /** How many places exist right now (workers of this process plus workers of live nodes). */
  placeCount(): number;
  /** How busy the worker of the shard's router is (webinar-placement.ts); undefined while not measured. */
  cpuOf(shard: MediaShard): CpuReading | undefined;
}
