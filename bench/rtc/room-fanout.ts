/**
 * The fan-out measurement through the room code: the domain bootstrapped as production starts it, rooms
 * on the same worker pool as the bare-router baseline, and per run a new meeting whose room gets one
 * producing peer and N consuming peers, all server-side peers over plain RTP.
 */
import { startTestCore, type TestCore } from '@svc/service/testing';
import { roomMediaProvider } from '../../service/src/media/mediasoup-room-media';
import type { SpanningRoomMedia } from '../../service/src/media/spanning-room-media';
import type { WorkerPool } from '../../service/src/media/worker-pool';
import type { Admission, PeerConnection } from '../../service/src/rooms/peer';
import type { RoomNotification, RoomNotifications } from '../../service/src/rooms/room.protocol';
import type { PeerInRoom } from '../../service/src/rooms/room';
import type { Principal } from '../../service/src/identity/identity.service';
import { FANOUT_STREAM, type FanoutSetup } from './fanout';

const LISTEN_IP = '127.0.0.1';

/** The service's domain on a fresh data directory with rooms on `pool`, and a principal that creates the meetings. */
export interface RoomsCore {
  core: TestCore;
  principal: Principal;
  /** The worker process that forwards (the pool must run exactly one). */
  workerPid: number;
  /** Closes every room and the database, and removes the data directory. */
  close(): void;
}

/** Bootstraps the domain as production does and gives its rooms the media of `pool`. */
export function startRoomsCore(pool: WorkerPool): RoomsCore {
  const workers = pool.health();
  if (workers.length !== 1 || workers[0]!.pid === null)
    throw new Error(`the fan-out needs a pool of one running worker, got ${workers.length}`);
  const core = startTestCore();
  try {
    core.services.rooms.useMedia(roomMediaProvider(pool));
    const { owner } = core.services.identity.ensureOwner();
    const organization = core.services.identity.listOrganizations()[0]!;
    const { key } = core.services.keys.create({ userId: owner.id, name: 'rtc bench', scopes: [], organizationId: organization.id });
    const principal = core.services.identity.authenticate(key)!;
    return {
      core,
      principal,
      workerPid: workers[0]!.pid,
      close() {
        core.services.rooms.close();
        core.dispose();
      },
    };
  } catch (error) {
    core.dispose();
    throw error;
  }
}

/** A server-side peer's socket: it answers `newConsumer` by resuming the consumer, as the room page does. */
class ResumingConnection implements PeerConnection {
  session: PeerInRoom | undefined;
  readonly resumes: Promise<void>[] = [];
  failure: Error | undefined;

  notify<N extends RoomNotification>(name: N, data: RoomNotifications[N]): void {
    if (name !== 'newConsumer' || !this.session) return;
    const { room, peer } = this.session;
    const consumerId = (data as RoomNotifications['newConsumer']).id;
    this.resumes.push(room.media.setConsumerPaused(peer.id, consumerId, false).catch((error: Error) => void (this.failure ??= error)));
  }

  close(): void {}
}

/** A FanoutSetup through the room code: a new meeting, N + 1 peers joined through RoomsService, plain RTP in and out. */
export function roomFanout(rooms: RoomsCore): FanoutSetup {
  const { services } = rooms.core;
  return async (consumerAddresses) => {
    const meeting = services.meetings.create(rooms.principal, { title: `Fan-out to ${consumerAddresses.length}` });
    const sessions: PeerInRoom[] = [];
    const connections: ResumingConnection[] = [];
    const leaveAll = () => {
      for (const session of sessions) services.rooms.leave(session, 'left');
    };
    try {
      for (let i = 0; i <= consumerAddresses.length; i++) {
        const admission: Admission = {
          meetingId: meeting.id,
          role: 'guest',
          name: i === 0 ? 'Producer' : `Consumer ${i}`,
          identity: `bench-${meeting.id}-${i}`,
          registrationId: null,
          switchedOff: [],
          embedTokenId: null,
        };
        const connection = new ResumingConnection();
        const session = await services.rooms.connect(admission, connection);
        connection.session = session;
        sessions.push(session);
        connections.push(connection);
        const joined = services.rooms.join(session, session.room.media.rtpCapabilities);
        if (joined.status !== 'joined') throw new Error(`peer ${i} was not let in: ${joined.status}`);
      }
      const [producer, ...consumers] = sessions;
      const { room } = producer!;
      for (const [i, { peer }] of consumers.entries()) {
        const transport = await room.media.createPlainTransport(peer.id, 'recv', LISTEN_IP);
        await room.media.connectPlainTransport(peer.id, transport.id, consumerAddresses[i]!);
      }
      const { kind, mimeType, clockRate, channels, payloadType, ssrc } = FANOUT_STREAM;
      const send = await room.media.createPlainTransport(producer!.peer.id, 'send', LISTEN_IP);
      await room.produce(producer!.peer, {
        transportId: send.id,
        kind,
        rtpParameters: { codecs: [{ mimeType, payloadType, clockRate, channels }], encodings: [{ ssrc }] },
        source: 'microphone',
        paused: false,
      });
      return {
        producerAddress: send.local,
        workerPid: rooms.workerPid,
        packetsSentToConsumers: async () => {
          const failed = connections.find((c) => c.failure);
          if (failed) throw new Error(`resuming a consumer failed: ${failed.failure!.message}`);
          return (room.media as SpanningRoomMedia).packetsSentToConsumers();
        },
        close: async () => {
          await Promise.all(connections.flatMap((c) => c.resumes));
          leaveAll();
          if (!room.closed) throw new Error('the room did not close when its last peer left');
        },
      };
    } catch (error) {
      leaveAll();
      throw error;
    }
  };
}
