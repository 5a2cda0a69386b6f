import { randomBytes } from 'node:crypto';
import net from 'node:net';

/** The parts of one WebSocket frame, any of which may be wrong on purpose. */
export interface RawFrame {
  fin?: boolean;
  /** RSV1-3 as a number 0..7 (nothing is negotiated, so anything but 0 is a protocol error). */
  rsv?: number;
  opcode: number;
  payload: Buffer;
  /** Clients must mask; false sends the payload in the clear. */
  masked?: boolean;
  /** The length the header declares, when it is to differ from the payload's. */
  declaredLength?: number;
}

/** The bytes of `frame` on the wire (RFC 6455 section 5.2). */
export function encodeFrame(frame: RawFrame): Buffer {
  const { fin = true, rsv = 0, opcode, payload, masked = true } = frame;
  const length = frame.declaredLength ?? payload.length;
  const head = [(fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0f)];
  const maskBit = masked ? 0x80 : 0;
  let extended = Buffer.alloc(0);
  if (length < 126) head.push(maskBit | length);
  else if (length < 0x10000) {
    head.push(maskBit | 126);
    extended = Buffer.alloc(2);
    extended.writeUInt16BE(length);
  } else {
    head.push(maskBit | 127);
    extended = Buffer.alloc(8);
    extended.writeBigUInt64BE(BigInt(length));
  }
  if (!masked) return Buffer.concat([Buffer.from(head), extended, payload]);
  const mask = randomBytes(4);
  const body = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from(head), extended, mask, body]);
}

/** A close frame with `code` (and a short reason). */
export function closeFrame(code: number): Buffer {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code);
  return encodeFrame({ opcode: 0x8, payload });
}

/** A raw TCP connection to the service: what it sent back, and whether it ended the connection. */
export interface RawConnection {
  socket: net.Socket;
  received(): Buffer;
  /** True once the service closed or reset the connection. */
  ended(): boolean;
  /** Resolves once the connection ended or `ms` passed, whichever is first; true when it ended. */
  waitForEnd(ms: number): Promise<boolean>;
}

/** Opens a TCP connection to `url`'s host and port and writes `bytes` at once. */
export function rawConnection(url: string, bytes: Buffer): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let ended = false;
    const endWaiters = new Set<() => void>();
    const end = () => {
      ended = true;
      for (const waiter of endWaiters) waiter();
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', end);
    socket.on('error', end);
    socket.once('connect', () => {
      socket.write(bytes);
      resolve({
        socket,
        received: () => Buffer.concat(chunks),
        ended: () => ended,
        waitForEnd: (ms) =>
          ended
            ? Promise.resolve(true)
            : new Promise((done) => {
                const timer = setTimeout(() => {
                  endWaiters.delete(finish);
                  done(false);
                }, ms);
                const finish = () => {
                  clearTimeout(timer);
                  done(true);
                };
                endWaiters.add(finish);
              }),
      });
    });
    socket.once('error', reject);
  });
}

/** An HTTP/1.1 WebSocket upgrade request for `target` (any request target, valid or not). */
export function upgradeRequest(target: string, headers: Record<string, string> = {}): Buffer {
  const all = {
    Host: 'localhost',
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
    ...headers,
  };
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}`);
  return Buffer.from(`GET ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}
