/**
 * Server-side peers on plain RTP for media tests and benchmarks: a UDP socket that counts the RTP packets it
 * receives by SSRC, and a synthetic RTP sender (Opus-sized packets, no real audio) at a fixed packet rate.
 */
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';

/** A UDP address on loopback. */
export interface UdpAddress {
  ip: string;
  port: number;
}

/** A socket that counts received RTP packets per SSRC. */
export interface RtpReceiver {
  readonly address: UdpAddress;
  /** RTP packets received with `ssrc`, or with any SSRC. */
  packets(ssrc?: number): number;
  close(): void;
}

/** RTCP shares the port with RTP (rtcp-mux); its packet types put 192..223 in the second byte (RFC 5761). */
function isRtp(packet: Buffer): boolean {
  return packet.length >= 12 && (packet[1]! < 192 || packet[1]! > 223);
}

async function bound(recvBufferSize?: number): Promise<Socket> {
  const socket = createSocket({ type: 'udp4', ...(recvBufferSize ? { recvBufferSize } : {}) });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return socket;
}

/** A receiving socket on 127.0.0.1. */
export async function openRtpReceiver(): Promise<RtpReceiver> {
  const socket = await bound(4 * 1024 * 1024);
  const bySsrc = new Map<number, number>();
  let total = 0;
  socket.on('message', (packet) => {
    if (!isRtp(packet)) return;
    total++;
    const ssrc = packet.readUInt32BE(8);
    bySsrc.set(ssrc, (bySsrc.get(ssrc) ?? 0) + 1);
  });
  return {
    address: { ip: '127.0.0.1', port: socket.address().port },
    packets: (ssrc) => (ssrc === undefined ? total : (bySsrc.get(ssrc) ?? 0)),
    close: () => socket.close(),
  };
}

/** A running synthetic RTP stream. */
export interface RtpStream {
  /** Packets sent so far. */
  sent(): number;
  stop(): void;
}

const SEND_TICK_MS = 2;
/** At most this many packets go out in one tick, so a stalled event loop does not turn into a burst. */
const MAX_BURST = 200;

/** What a synthetic RTP stream carries and how fast. */
export interface RtpStreamOptions {
  ssrc: number;
  payloadType: number;
  packetsPerSecond: number;
  /** RTP clock rate, for the timestamps; default 48,000. */
  clockRate?: number;
}

/** Sends 172-byte RTP packets (12-byte header, 160-byte payload) from `socket` to `to` at a fixed rate until stopped. */
export function startRtpStream(socket: Socket, to: UdpAddress, opts: RtpStreamOptions): RtpStream {
  const packet = Buffer.alloc(12 + 160, 0x5a);
  packet[0] = 0x80;
  packet[1] = opts.payloadType;
  packet.writeUInt32BE(opts.ssrc, 8);
  const samplesPerPacket = Math.max(1, Math.round((opts.clockRate ?? 48_000) / opts.packetsPerSecond));
  let sent = 0;
  const started = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * opts.packetsPerSecond) - sent;
    for (let i = 0; i < Math.min(due, MAX_BURST); i++) {
      packet.writeUInt16BE(sent & 0xffff, 2);
      packet.writeUInt32BE((sent * samplesPerPacket) >>> 0, 4);
      socket.send(packet, to.port, to.ip);
      sent++;
    }
  }, SEND_TICK_MS);
  return { sent: () => sent, stop: () => clearInterval(timer) };
}

/** startRtpStream from a socket of its own, closed by `stop`. */
export async function sendSyntheticRtp(to: UdpAddress, opts: RtpStreamOptions): Promise<RtpStream> {
  const socket = await bound();
  const stream = startRtpStream(socket, to, opts);
  return {
    sent: stream.sent,
    stop: () => {
      stream.stop();
      socket.close();
    },
  };
}
