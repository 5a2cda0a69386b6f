/**
 * One recorded track: the SFU sends one producer over plain RTP to its own loopback port, and one ffmpeg copies it
 * (`-c copy`, no transcoding) into its own Matroska file. The track's start offset is when its first RTP packet
 * left the SFU, measured from the recording's start, so tracks that start late are aligned when they are merged.
 *
 * Stopping: ffmpeg sees a SIGINT only when a packet reaches its main loop, and the producer may be silent or gone.
 * Its SDP has a second, unmapped Opus stream on a spare port: silent Opus packets sent there wake it until it exits.
 * An RTCP receiver report on both ports every few seconds keeps its 10 s read timeout from ending a silent track.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:dgram';
import type { types } from 'mediasoup';
import type { TrackOwner } from '../rooms/room-media.interface';
import { AppError } from '../shared/errors';
import { freePortPair, LOOPBACK, sdpOf, waitForBoundPort, type SdpSlot } from './ffmpeg';

/** What a track recorder needs: the router, the file, the tools and the recording's clock. */
export interface TrackRecorderDeps {
  router: types.Router;
  producer: types.Producer;
  source: string;
  owner: TrackOwner | null;
  filePath: string;
  ffmpeg: string;
  /** The recording's start (ms, Date.now()); offsets are measured from it. */
  startedAt: number;
  /** The recording's UDP socket the keepalive and wake packets are sent from (undefined once it closed). */
  socket: () => Socket | undefined;
  /** Called when ffmpeg exits on its own while recording (it crashed). */
  onCrash: (error: Error) => void;
}

/** A finished track: its file, whose it is and when it started. */
export interface FinishedTrack {
  filePath: string;
  kind: 'audio' | 'video';
  source: string;
  owner: TrackOwner | null;
  /** Seconds from the recording's start to the track's first packet. */
  offsetSeconds: number;
  /** Seconds from the recording's start to the track's end. */
  endSeconds: number;
}

const KEEPALIVE_MS = 2_000;
const STOP_WAKE_MS = 50;
const WAKE_SSRC = 0x5ec0de;
const KEYFRAME_RETRIES_MS = [0, 500, 1_000, 2_000, 3_000, 5_000];

/** Records one producer into one file with its own ffmpeg. */
export class TrackRecorder {
  private process: ChildProcess | undefined;
  private exited: Promise<number | null> | undefined;
  private transport: types.PlainTransport | undefined;
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private slots: SdpSlot[] = [];
  private stopping = false;
  private firstPacketAt: number | undefined;
  private stderrTail = '';

  constructor(private readonly deps: TrackRecorderDeps) {}

  /** The producer this track records. */
  get producerId(): string {
    return this.deps.producer.id;
  }

  /** ffmpeg's last words (for the log when a track fails). */
  get lastWords(): string {
    return this.stderrTail.trim().slice(-300);
  }

  /** What the track carries (microphone, camera, screen). */
  get source(): string {
    return this.deps.source;
  }

  /** Starts ffmpeg, waits until it listens, then consumes the producer into it. */
  async start(): Promise<void> {
    const { router, producer } = this.deps;
    const codec = (router.rtpCapabilities.codecs ?? []).find((c) => c.mimeType.toLowerCase() === mimeOf(producer));
    const opus = (router.rtpCapabilities.codecs ?? []).find((c) => c.mimeType.toLowerCase() === 'audio/opus')!;
    if (!codec) throw new AppError('conflict', `The router cannot forward ${mimeOf(producer)}`);
    const clock = codec.clockRate;
    const rtpmap = codec.kind === 'audio' ? `opus/${clock}/2` : `${codec.mimeType.split('/')[1]}/${clock}`;
    this.slots = [
      { kind: producer.kind, port: await freePortPair(), payloadType: codec.preferredPayloadType!, rtpmap },
      { kind: 'audio', port: await freePortPair(), payloadType: opus.preferredPayloadType!, rtpmap: 'opus/48000/2' },
    ];
    this.spawnFfmpeg();
    this.keepalive();
    await Promise.all(this.slots.map((slot) => waitForBoundPort(slot.port)));
    const transport = await router.createPlainTransport({ listenInfo: { protocol: 'udp', ip: LOOPBACK }, rtcpMux: false, comedia: false });
    this.transport = transport;
    await transport.connect({ ip: LOOPBACK, port: this.slots[0]!.port, rtcpPort: this.slots[0]!.port + 1 });
    const consumer = await transport.consume({
      producerId: producer.id,
      rtpCapabilities: { codecs: [codec], headerExtensions: [] },
      paused: true,
    });
    if (this.stopping) return transport.close();
    // The first packet that leaves the SFU marks the track's start; tracing stops right after it.
    await consumer.enableTraceEvent(['rtp']);
    consumer.on('trace', () => {
      if (this.firstPacketAt !== undefined) return;
      this.firstPacketAt = Date.now();
      void consumer.enableTraceEvent([]).catch(() => undefined);
    });
    await consumer.resume();
    if (consumer.kind === 'video') {
      for (const delay of KEYFRAME_RETRIES_MS) setTimeout(() => void consumer.requestKeyFrame().catch(() => undefined), delay).unref();
    }
  }

  /** Ends the file (SIGINT, then wake packets until ffmpeg exits); null when nothing arrived (no file worth keeping). */
  async stop(timeoutMs: number): Promise<FinishedTrack | null> {
    this.stopping = true;
    const endedAt = Date.now();
    this.transport?.close();
    const child = this.process;
    if (!child || !this.exited) return null;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    this.wakeUntilExit();
    let killTimer: NodeJS.Timeout | undefined;
    const killed = new Promise<'killed'>((resolve) => {
      killTimer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('killed');
      }, timeoutMs);
    });
    const outcome = await Promise.race([this.exited, killed]);
    clearTimeout(killTimer);
    clearInterval(this.keepaliveTimer);
    if (outcome === 'killed') throw new AppError('internal_error', `ffmpeg did not finish ${this.deps.source} within ${timeoutMs} ms`);
    if (this.firstPacketAt === undefined) return null;
    return {
      filePath: this.deps.filePath,
      kind: this.deps.producer.kind,
      source: this.deps.source,
      owner: this.deps.owner,
      offsetSeconds: Math.max(0, (this.firstPacketAt - this.deps.startedAt) / 1000),
      endSeconds: (endedAt - this.deps.startedAt) / 1000,
    };
  }

  /** Kills ffmpeg at once (the recording failed). */
  abort(): void {
    this.stopping = true;
    clearInterval(this.keepaliveTimer);
    this.transport?.close();
    if (this.process && this.process.exitCode === null) this.process.kill('SIGKILL');
  }

  private spawnFfmpeg(): void {
    const args = ['-hide_banner', '-nostdin', '-loglevel', 'warning', '-protocol_whitelist', 'file,udp,rtp,pipe'];
    args.push('-analyzeduration', '2000000', '-fflags', '+genpts', '-f', 'sdp', '-i', 'pipe:0', '-map', '0:0', '-c', 'copy');
    args.push('-flush_packets', '1', '-f', 'matroska', '-y', this.deps.filePath);
    // Its own process group: a Ctrl-C in the service's terminal must not reach it (a second SIGINT would lose the trailer).
    const child = spawn(this.deps.ffmpeg, args, { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
    child.stdin.end(sdpOf(this.slots));
    child.stdin.on('error', () => undefined);
    child.stderr.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-2_000)));
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => {
        if (!this.stopping) this.deps.onCrash(error);
        resolve(null);
      });
      child.once('exit', (code) => {
        if (!this.stopping) this.deps.onCrash(new Error(`ffmpeg exited with code ${code} while recording: ${this.stderrTail.trim()}`));
        resolve(code);
      });
    });
    this.process = child;
  }

  /** An empty RTCP receiver report (RFC 3550 6.4.2) on every port every few seconds: ffmpeg reads and ignores it. */
  private keepalive(): void {
    const report = Buffer.from([0x80, 201, 0, 1, 0, 0, 0, 1]);
    this.keepaliveTimer = setInterval(() => {
      for (const slot of this.slots) this.deps.socket()?.send(report, slot.port + 1, LOOPBACK);
    }, KEEPALIVE_MS);
  }

  private wakeUntilExit(): void {
    const wake = this.slots[1];
    if (!wake) return;
    clearInterval(this.keepaliveTimer);
    const packet = Buffer.alloc(13);
    packet[0] = 0x80;
    packet[1] = wake.payloadType;
    packet.writeUInt32BE(WAKE_SSRC, 8);
    // One Opus frame of 20 ms with no data: silence (RFC 6716 3.1, TOC 0xf8).
    packet[12] = 0xf8;
    let seq = 0;
    this.keepaliveTimer = setInterval(() => {
      packet.writeUInt16BE(seq & 0xffff, 2);
      packet.writeUInt32BE((seq * 960) >>> 0, 4);
      seq++;
      this.deps.socket()?.send(packet, wake.port, LOOPBACK);
    }, STOP_WAKE_MS);
  }
}

function mimeOf(producer: types.Producer): string {
  return producer.rtpParameters.codecs[0]!.mimeType.toLowerCase();
}
