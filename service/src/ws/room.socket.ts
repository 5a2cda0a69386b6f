import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { handleRoomRequest, isRoomMethod } from '../rooms/room.handlers';
import type { PeerConnection } from '../rooms/peer';
import { ROOM_LIMITS, type RoomError, type RoomNotification, type RoomNotifications } from '../rooms/room.protocol';
import type { RoomSession, RoomsService } from '../rooms/rooms.service';
import { AppError } from '../shared/errors';
import { TokenBucket } from '../shared/token-bucket';
import type { Logger } from '../shared/logger';

/** The path of the room's WebSocket. */
export const ROOM_SOCKET_PATH = '/rooms/v1/socket';

/** Close codes the page acts on: a refused credential, an unavailable meeting, a server that could not place the peer. */
const CLOSE_UNAUTHORIZED = 4401;
const CLOSE_UNAVAILABLE = 4409;
const CLOSE_SERVER_ERROR = 1011;
/** Frames beyond this are not even read (ws closes with 1009); frames over ROOM_LIMITS.maxFrameBytes get an error. */
const HARD_FRAME_LIMIT = 1024 * 1024;
/** A socket that does not answer a ping within this time is gone (its peer leaves). */
const HEARTBEAT_MS = 15_000;
/** Requests one socket may send in a burst, and per second after that. */
const REQUEST_BURST = 100;
const REQUESTS_PER_SECOND = 50;

/** The room sockets of an HTTP server; `close()` ends them all. */
export interface RoomSockets {
  close(): void;
}

/** Serves the room's signalling WebSocket on `server` at ROOM_SOCKET_PATH; other upgrade requests get 404. */
export function attachRoomSockets(server: http.Server, rooms: RoomsService, logger: Logger): RoomSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: HARD_FRAME_LIMIT });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== ROOM_SOCKET_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('pong', () => unanswered.delete(ws));
      void serveSocket(ws, url.searchParams.get('credential') ?? '', rooms, logger);
    });
  });
  // Sockets pinged by the last heartbeat that have not answered yet.
  const unanswered = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (unanswered.has(ws)) {
        ws.terminate();
        continue;
      }
      unanswered.add(ws);
      ws.ping();
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    close() {
      clearInterval(heartbeat);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}

async function serveSocket(ws: WebSocket, credential: string, rooms: RoomsService, logger: Logger): Promise<void> {
  const send = (frame: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };
  const refuse = (error: RoomError, code: number) => {
    send({ notification: 'error', data: error });
    ws.close(code, error.code);
  };
  // Frames that arrive while the peer is being placed wait for it.
  const early: RawData[] = [];
  ws.on('message', (raw) => early.push(raw));

  let session: RoomSession;
  try {
    const admission = rooms.admissionOf(credential);
    const connection: PeerConnection = {
      notify: <N extends RoomNotification>(name: N, data: RoomNotifications[N]) => send({ notification: name, data }),
      // After the answers already on their way: a peer that calls leave (or endMeeting) still gets its answer.
      close: () => setImmediate(() => ws.close(1000, 'left')),
    };
    session = await rooms.connect(admission, connection);
  } catch (error) {
    const known = toRoomError(error, logger);
    const code =
      known.code === 'unauthorized' ? CLOSE_UNAUTHORIZED : known.code === 'meeting_unavailable' ? CLOSE_UNAVAILABLE : CLOSE_SERVER_ERROR;
    return refuse(known, code);
  }
  if (ws.readyState !== ws.OPEN) return rooms.leave(session, 'left');

  const allowance = new TokenBucket(REQUEST_BURST, REQUESTS_PER_SECOND, Date.now());
  const onFrame = (raw: RawData) => {
    void answer(raw).then(send);
  };
  const answer = async (raw: RawData): Promise<unknown> => {
    const bytes = Array.isArray(raw) ? raw.reduce((n, b) => n + b.length, 0) : raw.byteLength;
    if (bytes > ROOM_LIMITS.maxFrameBytes) {
      return failure(null, { code: 'payload_too_large', message: `Frames are at most ${ROOM_LIMITS.maxFrameBytes} bytes` });
    }
    if (!allowance.take(Date.now())) return failure(null, { code: 'rate_limited', message: 'Too many requests; slow down' });
    let frame: unknown;
    try {
      frame = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.from(raw as ArrayBuffer).toString('utf8'));
    } catch {
      return failure(null, { code: 'invalid_json', message: 'Every frame is one JSON object' });
    }
    const request = (frame !== null && typeof frame === 'object' && !Array.isArray(frame) ? frame : {}) as {
      id?: unknown;
      method?: unknown;
      data?: unknown;
    };
    const id = typeof request.id === 'number' && Number.isSafeInteger(request.id) && request.id >= 0 ? request.id : null;
    if (id === null) {
      return failure(null, {
        code: 'validation_failed',
        message: 'A request is {"id": <non-negative integer>, "method": <string>, "data": {...}}',
      });
    }
    if (!isRoomMethod(request.method)) {
      return failure(id, { code: 'method_not_allowed', message: `Unknown method ${JSON.stringify(String(request.method)).slice(0, 80)}` });
    }
    try {
      return { id, ok: true, data: await handleRoomRequest(session, request.method, request.data, rooms) };
    } catch (error) {
      return failure(id, toRoomError(error, logger));
    }
  };
  ws.removeAllListeners('message');
  ws.on('message', onFrame);
  for (const raw of early.splice(0)) onFrame(raw);
  ws.on('close', () => {
    if (session.peer.state !== 'left') rooms.leave(session, 'left');
  });
}

function failure(id: number | null, error: RoomError) {
  return { id, ok: false, error };
}

function toRoomError(error: unknown, logger: Logger): RoomError {
  if (error instanceof AppError) {
    const fields = error.extra.errors ? { errors: error.extra.errors } : {};
    const reason = error.extra.reason ? { reason: error.extra.reason } : {};
    return { code: error.code, message: error.detail, ...fields, ...reason } as RoomError;
  }
  logger.error('room request failed', { error: error instanceof Error ? error.message : String(error) });
  return { code: 'internal_error', message: 'Something went wrong on the server' };
}
