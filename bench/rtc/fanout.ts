/**
 * The plain-RTP fan-out measurement: synthetic RTP from a UDP socket into one producer, forwarded
 * to N consumers whose packets are counted on N UDP sockets, all on loopback, with the forwarding
 * worker's CPU time from /proc. What sets up the producer and consumers is a parameter
 * (`FanoutSetup`), so a bare router and, later, the room layer are measured the same way.
 */
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRtpStream } from '../../service/src/testing/plain-rtp';
import { pollUntil, procStat } from '../support';

/** The RTP stream the producer receives; a setup declares it as the producer's RTP parameters. */
export const FANOUT_STREAM = {
  kind: 'audio',
  mimeType: 'audio/opus',
  clockRate: 48_000,
  channels: 2,
  payloadType: 100,
  ssrc: 0x5eed_0001,
} as const;

/** Where packets go on loopback. */
export interface UdpAddress {
  ip: string;
  port: number;
}

/** One producer fanned out to consumers, as a setup made it. */
export interface FanoutSession {
  /** Where the producer's transport receives RTP; it learns the sender's address from the first packet (comedia). */
  producerAddress: UdpAddress;
  /** The mediasoup worker process that forwards, for its CPU time. */
  workerPid: number;
  /** RTP packets sent to all consumers so far, as the worker counts them (consumers' outbound-rtp stats). */
  packetsSentToConsumers(): Promise<number>;
  /** Removes everything the setup created. */
  close(): Promise<void>;
}

/** Sets up one plain-RTP producer of FANOUT_STREAM and one plain-RTP consumer of it sending to each of `consumerAddresses`. */
export type FanoutSetup = (consumerAddresses: UdpAddress[]) => Promise<FanoutSession>;

/** How long and how hard one measurement runs. */
export interface FanoutRun {
  consumers: number;
  packetsPerSecond: number;
  warmupSeconds: number;
  seconds: number;
}

/** What one measurement found. */
export interface FanoutResult {
  consumers: number;
  seconds: number;
  /** RTP packets sent to the producer per second. */
  sentPerSecond: number;
  /** RTP packets the worker sent to the consumers per second, by its own count. */
  forwardedPerSecond: number;
  /** Forwarded packets / (sent x consumers): 1 when the worker forwards every packet to every consumer. */
  forwardedRatio: number;
  /** RTP packets that arrived on the consumers' sockets, per second. */
  arrivedPerSecond: number;
  /** The worker's user + system CPU time per 1,000 forwarded packets, in ms. */
  workerCpuMsPer1000: number;
  /** The worker's CPU time as a share of one core. */
  workerCoreShare: number;
  /** How long the setup took to create the producer and its consumers, in ms. */
  setupMs: number;
}

/** Bytes of every RTP packet sent: a 12-byte header and an Opus-sized payload. */
export const RTP_PACKET_BYTES = 12 + 160;
const FIRST_PACKET_TIMEOUT_MS = 10_000;
const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;
/** Linux reports /proc times in clock ticks of 10 ms. */
const MS_PER_CLOCK_TICK = 10;

/** utime + stime of a process, in ms. */
export function processCpuMs(pid: number): number {
  const stat = procStat(pid);
  if (!stat) throw new Error(`process ${pid} has exited`);
  return (stat.utime + stat.stime) * MS_PER_CLOCK_TICK;
}

/** RTCP shares the port with RTP (rtcp-mux); its packet types put 192..223 in the second byte (RFC 5761). */
function isRtp(packet: Buffer): boolean {
  return packet.length >= 12 && (packet[1]! < 192 || packet[1]! > 223);
}

async function openSocket(): Promise<Socket> {
  const socket = createSocket({ type: 'udp4', recvBufferSize: SOCKET_BUFFER_BYTES });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return socket;
}

/** Sends FANOUT_STREAM packets to `to` at `packetsPerSecond` until stopped; counts what it sent. */
function startSending(socket: Socket, to: UdpAddress, packetsPerSecond: number): { sent: () => number; stop: () => void } {
  const { ssrc, payloadType, clockRate } = FANOUT_STREAM;
  return startRtpStream(socket, to, { ssrc, payloadType, clockRate, packetsPerSecond });
}

/** The counters at one moment; `at` is the middle of the (asynchronous) stats request. */
async function snapshot(
  session: FanoutSession,
  sending: { sent: () => number },
  arrived: number[],
): Promise<{ at: number; sent: number; forwarded: number; arrived: number; cpuMs: number }> {
  const requested = performance.now();
  const forwarded = await session.packetsSentToConsumers();
  const at = (requested + performance.now()) / 2;
  return {
    at,
    sent: sending.sent(),
    forwarded,
    arrived: arrived.reduce((sum, count) => sum + count, 0),
    cpuMs: processCpuMs(session.workerPid),
  };
}

/** Runs one fan-out measurement through `setup`: warm-up until every consumer receives, then `seconds` measured. */
export async function measureFanout(setup: FanoutSetup, run: FanoutRun): Promise<FanoutResult> {
  const receivers = await Promise.all(Array.from({ length: run.consumers }, openSocket));
  const sender = await openSocket();
  const arrived = new Array<number>(run.consumers).fill(0);
  receivers.forEach((socket, i) =>
    socket.on('message', (packet) => {
      if (isRtp(packet)) arrived[i]!++;
    }),
  );
  let session: FanoutSession | undefined;
  let sending: ReturnType<typeof startSending> | undefined;
  try {
    const setupStarted = performance.now();
    session = await setup(receivers.map((socket) => ({ ip: '127.0.0.1', port: socket.address().port })));
    const setupMs = performance.now() - setupStarted;
    sending = startSending(sender, session.producerAddress, run.packetsPerSecond);
    await pollUntil(() => arrived.every((count) => count > 0), {
      intervalMs: 20,
      timeoutMs: FIRST_PACKET_TIMEOUT_MS,
      what: 'a packet on every consumer',
    });
    await sleep(run.warmupSeconds * 1000);

    const before = await snapshot(session, sending, arrived);
    await sleep(run.seconds * 1000);
    const after = await snapshot(session, sending, arrived);
    const seconds = (after.at - before.at) / 1000;
    const sent = after.sent - before.sent;
    const forwarded = after.forwarded - before.forwarded;
    const cpuMs = after.cpuMs - before.cpuMs;

    return {
      consumers: run.consumers,
      seconds,
      sentPerSecond: sent / seconds,
      forwardedPerSecond: forwarded / seconds,
      forwardedRatio: forwarded / (sent * run.consumers),
      arrivedPerSecond: (after.arrived - before.arrived) / seconds,
      workerCpuMsPer1000: forwarded === 0 ? NaN : cpuMs / (forwarded / 1000),
      workerCoreShare: cpuMs / 1000 / seconds,
      setupMs,
    };
  } finally {
    sending?.stop();
    await session?.close();
    for (const socket of [sender, ...receivers]) socket.close();
  }
}
