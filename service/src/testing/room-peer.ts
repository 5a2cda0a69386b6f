import type { PeerConnection } from '../rooms/peer';
import { handleRoomRequest } from '../rooms/room.handlers';
import type { RoomMethod, RoomMethods, RoomNotification, RoomNotifications } from '../rooms/room.protocol';
import { fakeRtpCapabilities } from './fake-room-media';
import { principalIn } from './fixtures';
import type { TestServer } from './harness';
import { newHolderSecret } from './room-client';

/** A socket as the RoomsService sees one: it keeps what it is told and whether it was closed. */
export interface RecordingConnection extends PeerConnection {
  told: { name: RoomNotification; data: unknown }[];
  closed: boolean;
}

/** A PeerConnection that records its notifications (for service tests without a WebSocket). */
export function recordingConnection(): RecordingConnection {
  const connection: RecordingConnection = {
    told: [],
    closed: false,
    notify: (name, data) => void connection.told.push({ name, data }),
    close: () => void (connection.closed = true),
  };
  return connection;
}

/**
 * A peer of meeting `m` connected the way the room socket does it (credential -> admission -> connect), as a
 * host (a host link) or a guest called `name`, and joined unless `join` is false. `call` runs a signalling method
 * through the same validation as the socket; `seen` lists the notifications `name` it was told.
 */
export async function roomPeer(
  t: TestServer,
  m: { id: string; code: string },
  name: string,
  opts: { host?: boolean; join?: boolean } = {},
) {
  const body = opts.host
    ? {
        name,
        host: new URL(t.services.roomLinks.hostLink(principalIn(t, t.org.id), m.id).url).searchParams.get('host'),
        holder: newHolderSecret(),
      }
    : { name };
  const { credential } = t.services.roomAccess.issueCredential(m.code, body, 'ws://test');
  const connection = recordingConnection();
  const session = await t.services.rooms.connect(t.services.roomAccess.admissionOf(credential), connection);
  const call = <M extends RoomMethod>(method: M, data: RoomMethods[M]['data']) =>
    handleRoomRequest(session, method, data, t.services.rooms) as Promise<RoomMethods[M]['result']>;
  const seen = <N extends RoomNotification>(notification: N) =>
    connection.told.filter((n) => n.name === notification).map((n) => n.data as RoomNotifications[N]);
  if (opts.join !== false) await call('join', { rtpCapabilities: fakeRtpCapabilities() });
  return { session, connection, call, seen, identity: session.peer.admission.identity };
}
