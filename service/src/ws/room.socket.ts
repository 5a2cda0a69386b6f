import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { handleRoomRequest, isRoomMethod } from '../rooms/room.handlers';
import type { PeerConnection } from '../rooms/peer';
import { ROOM_LIMITS, type RoomError, type RoomNotification, type RoomNotifications } from '../rooms/room.protocol';
import type { PeerInRoom } from '../rooms/room';
import type { RoomAccess } from '../rooms/room-access';
import type { RoomsService } from '../rooms/rooms.service';
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
/** What a socket may send while its peer is being placed; a page sends one or two requests. */
const EARLY_FRAMES_LIMIT = 32;
const EARLY_BYTES_LIMIT = 256 * 1024;
/** A refused socket gets this long to finish the close handshake, and may send this much meanwhile (all discarded). */
const REFUSED_LINGER_MS = 2_000;
const REFUSED_BYTES_LIMIT = 64 * 1024;
/** Answers and notifications queued for a socket that does not read them; past this it is cut off. */
const SEND_BUFFER_LIMIT = 4 * 1024 * 1024;

/** The room sockets of an HTTP server; `close()` ends them all. */
export interface RoomSockets {
  close(): void;
}

/** Serves the room's signalling WebSocket on `server` at ROOM_SOCKET_PATH; other upgrade requests get 404. */
export function attachRoomSockets(server: http.Server, rooms: RoomsService, access: RoomAccess, logger: Logger): RoomSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: HARD_FRAME_LIMIT });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node removes its own error handler from an upgraded socket: a reset before ws takes it over must not throw.
    socket.on('error', () => socket.destroy());
    const url = requestUrl(req.url);
    if (!url) return rejectUpgrade(socket, '400 Bad Request');
    if (url.pathname !== ROOM_SOCKET_PATH) return rejectUpgrade(socket, '404 Not Found');
    wss.handleUpgrade(req, socket, head, (ws) => {
      // Protocol errors (bad UTF-8, oversized frames, bad close codes) end this socket, never the process.
      ws.on('error', (error) => logger.debug('room socket closed on a protocol error', { error: error.message }));
      ws.on('pong', () => unanswered.delete(ws));
      void serveSocket(ws, url.searchParams.get('credential') ?? '', rooms, access, logger);
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

/** The request target of an upgrade as a URL, or undefined when it is not one (`GET http://[`). */
function requestUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

function rejectUpgrade(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function frameBytes(raw: RawData): number {
  return Array.isArray(raw) ? raw.reduce((n, b) => n + b.length, 0) : raw.byteLength;
}

async function serveSocket(ws: WebSocket, credential: string, rooms: RoomsService, access: RoomAccess, logger: Logger): Promise<void> {
  const send = (frame: unknown) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > SEND_BUFFER_LIMIT) return ws.terminate();
    ws.send(JSON.stringify(frame));
  };
  const refuse = (error: RoomError, code: number) => {
    send({ notification: 'error', data: error });
    ws.close(code, error.code);
    // Whatever a refused socket still sends is dropped, and only a little of it is read before it is cut off.
    let discarded = 0;
    ws.removeAllListeners('message');
    ws.on('message', (raw) => {
      discarded += frameBytes(raw);
      if (discarded > REFUSED_BYTES_LIMIT) ws.terminate();
    });
    setTimeout(() => ws.terminate(), REFUSED_LINGER_MS).unref();
  };
  // Frames that arrive while the peer is being placed wait for it, up to a small limit.
  const early: RawData[] = [];
  let earlyBytes = 0;
  ws.on('message', (raw) => {
    early.push(raw);
    earlyBytes += frameBytes(raw);
    if (early.length > EARLY_FRAMES_LIMIT || earlyBytes > EARLY_BYTES_LIMIT) ws.terminate();
  });

  let session: PeerInRoom;
  try {
    const admission = access.admissionOf(credential);
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
    if (frameBytes(raw) > ROOM_LIMITS.maxFrameBytes) {
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
