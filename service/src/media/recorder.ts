/**
 * Records a room into one webm file with ffmpeg: the SFU sends each recorded track over plain RTP to
 * its own loopback port (one mediasoup plain transport per track, RTCP on port+1), ffmpeg reads them
 * all from one SDP file and copies them (`-c copy`, no transcoding) into the file.
 *
 * What is recorded: every participant's microphone as its own Opus track (nothing is mixed; speaker =
 * track, and the finished recording lists each audio track's participant and name), up to `audioTracks` of them (default 8), and one video track: the first VP8 camera present
 * when ffmpeg starts. ffmpeg starts at the first producer (after a short settle, so a camera that
 * starts with the microphone is in); microphones that start later fill the spare audio tracks (ffmpeg
 * cannot add tracks to a running file, so the SDP has them from the start); a camera that starts later,
 * screen shares, H.264 cameras and microphones beyond `audioTracks` are not recorded.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { types } from 'mediasoup';
import type { MediaRecording, RecordedMedia, TrackOwner } from '../rooms/room-media.interface';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { freePortPair, LOOPBACK, probeRecordedFile, sdpOf, waitForBoundPort, type SdpSlot } from './ffmpeg';

/** How a recorder runs; every field has a default. */
export interface RecorderOptions {
  /** Audio tracks in the file (participants' microphones); default 8. */
  audioTracks?: number;
  /** The ffmpeg and ffprobe executables; default from PATH. */
  ffmpeg?: string;
  ffprobe?: string;
  /** Wait after the first producer for the others of the same participant before ffmpeg starts; default 1000 ms. */
  settleMs?: number;
  /** How long ffmpeg may take to finish the file after SIGINT before it is killed; default 5000 ms. */
  stopTimeoutMs?: number;
  logger?: Logger;
}

/** A producer the recorder may consume, with what it sends and whose it is. */
export interface RecordableProducer {
  producer: types.Producer;
  source: string;
  /** Its participant and their name; absent for a sender that is no participant (a benchmark's plain transport). */
  owner?: TrackOwner;
}

interface Slot extends SdpSlot {
  producerId?: string;
  owner?: TrackOwner | null;
  transport?: types.PlainTransport;
  consumer?: types.Consumer;
}

/** ffmpeg's RTP input gives up after 10 s without a packet; an RTCP receiver report every few seconds keeps it reading through silence. */
const KEEPALIVE_MS = 2_000;
/** While stopping, ffmpeg gets a silent packet this often so it sees the SIGINT. */
const STOP_WAKE_MS = 50;
const WAKE_SSRC = 0x5ec0de;
/** Keyframe requests after a video consumer starts: the file needs one first, and the first may be lost while ffmpeg probes. */
const KEYFRAME_RETRIES_MS = [0, 1_000, 3_000];

const toolsChecked = new Map<string, string | null>();

/** Null when ffmpeg and ffprobe run, else why recording is unavailable (checked once per process). */
export function recordingUnavailableReason(ffmpeg = 'ffmpeg', ffprobe = 'ffprobe'): string | null {
  const key = `${ffmpeg}\0${ffprobe}`;
  if (!toolsChecked.has(key)) {
    const missing = [ffmpeg, ffprobe].filter((bin) => spawnSync(bin, ['-version'], { stdio: 'ignore' }).status !== 0);
    toolsChecked.set(
      key,
      missing.length === 0
        ? null
        : `Recording is unavailable: ${missing.join(' and ')} not found (run scripts/ensure-media-tools.sh as root, or apt-get install ffmpeg)`,
    );
  }
  return toolsChecked.get(key)!;
}

/** One running recording of a router's producers into a webm file. */
export class RoomRecorder implements MediaRecording {
  private readonly slots: Slot[] = [];
  private readonly pending: RecordableProducer[] = [];
  private process: ChildProcess | undefined;
  private exited: Promise<number | null> | undefined;
  private keepalive: Socket | undefined;
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private starting: Promise<void> | undefined;
  /** True once ffmpeg runs and the first tracks are attached: later producers attach directly. */
  private ready = false;
  private stopping = false;
  private failureListeners: ((error: Error) => void)[] = [];
  private stderrTail = '';
  private readonly opts: Required<Omit<RecorderOptions, 'logger'>> & { logger?: Logger };

  constructor(
    private readonly router: types.Router,
    private readonly filePath: string,
    options: RecorderOptions = {},
  ) {
    this.opts = {
      audioTracks: options.audioTracks ?? 8,
      ffmpeg: options.ffmpeg ?? 'ffmpeg',
      ffprobe: options.ffprobe ?? 'ffprobe',
      settleMs: options.settleMs ?? 1_000,
      stopTimeoutMs: options.stopTimeoutMs ?? 5_000,
      logger: options.logger,
    };
    const reason = recordingUnavailableReason(this.opts.ffmpeg, this.opts.ffprobe);
    if (reason) throw new AppError('conflict', reason);
  }

  /** Adds a producer: before ffmpeg starts it is a candidate; afterwards a microphone takes a spare audio track. */
  add(recordable: RecordableProducer): void {
    if (this.stopping) return;
    if (!this.ready) {
      this.pending.push(recordable);
      if (!this.starting) this.settleTimer ??= setTimeout(() => void this.start(), this.opts.settleMs);
      return;
    }
    if (recordable.producer.kind !== 'audio') return;
    void this.attach(recordable).catch((error: unknown) => this.log('could not record a new track', error));
  }

  /** Starts ffmpeg now when producers were added (recording began in a room with media), else at the first producer after the settle time. */
  begin(): void {
    if (this.pending.length === 0) return;
    clearTimeout(this.settleTimer);
    void this.start();
  }

  onFailure(listener: (error: Error) => void): void {
    this.failureListeners.push(listener);
  }

  /** Stops ffmpeg with one SIGINT, waits for the file and measures it; a recording that never started or ends unreadable fails. */
  async stop(): Promise<RecordedMedia> {
    this.stopping = true;
    clearTimeout(this.settleTimer);
    await this.starting?.catch(() => undefined);
    const child = this.process;
    if (!child || !this.exited) {
      this.closeMedia();
      throw new AppError('conflict', 'Nothing was recorded: nobody sent audio or video');
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    // ffmpeg notices the signal only when an RTP packet reaches its main loop (else after its 10 s read timeout), and
    // nobody may be talking: it gets silent Opus packets on a spare audio track until it exits.
    this.wakeUntilExit();
    let killTimer: NodeJS.Timeout | undefined;
    const killed = new Promise<'killed'>((resolve) => {
      killTimer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('killed');
      }, this.opts.stopTimeoutMs);
    });
    const outcome = await Promise.race([this.exited, killed]);
    clearTimeout(killTimer);
    this.closeMedia();
    if (outcome === 'killed') throw new AppError('internal_error', `ffmpeg did not finish the file within ${this.opts.stopTimeoutMs} ms`);
    return this.measure();
  }

  private async start(): Promise<void> {
    if (this.starting || this.stopping) return;
    this.starting = this.launch();
    try {
      await this.starting;
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private async launch(): Promise<void> {
    const live = this.pending.splice(0).filter(({ producer }) => !producer.closed);
    const camera = live.find(({ producer, source }) => source === 'camera' && isVp8(producer));
    const codecs = this.router.rtpCapabilities.codecs ?? [];
    const opus = codecs.find((c) => c.mimeType.toLowerCase() === 'audio/opus')!;
    const vp8 = codecs.find((c) => c.mimeType.toLowerCase() === 'video/vp8');
    for (let i = 0; i < this.opts.audioTracks; i++) {
      this.slots.push({ kind: 'audio', port: await freePortPair(), payloadType: opus.preferredPayloadType!, rtpmap: 'opus/48000/2' });
    }
    if (camera && vp8)
      this.slots.push({ kind: 'video', port: await freePortPair(), payloadType: vp8.preferredPayloadType!, rtpmap: 'VP8/90000' });
    const sdpPath = `${this.filePath}.sdp`;
    await fs.promises.mkdir(path.dirname(this.filePath), { recursive: true });
    await fs.promises.writeFile(sdpPath, sdpOf(this.slots));
    this.spawnFfmpeg(sdpPath);
    await this.startKeepalive();
    await Promise.all(this.slots.map((slot) => waitForBoundPort(slot.port)));
    for (const recordable of live) {
      if (recordable.producer.kind === 'audio' || recordable === camera) await this.attach(recordable);
    }
    this.ready = true;
    // Microphones that started while ffmpeg was starting.
    for (const late of this.pending.splice(0)) {
      if (late.producer.kind === 'audio' && !late.producer.closed) await this.attach(late);
    }
  }

  private spawnFfmpeg(sdpPath: string): void {
    const args = ['-hide_banner', '-nostdin', '-loglevel', 'warning', '-protocol_whitelist', 'file,udp,rtp'];
    // Probing stops after 2 s of media (not 5): a short recording with empty spare tracks still gets its packets written.
    args.push(
      '-analyzeduration',
      '2000000',
      '-fflags',
      '+genpts',
      '-i',
      sdpPath,
      '-map',
      '0',
      '-c',
      'copy',
      // Spare tracks stay empty: without a short interleave limit ffmpeg would buffer 10 s of packets waiting for them.
      '-max_interleave_delta',
      '500000',
      // Writes what it has at once (the header as soon as probing ends), not in 32 KB blocks.
      '-flush_packets',
      '1',
      '-f',
      'webm',
      '-y',
      this.filePath,
    );
    // Its own process group: a Ctrl-C in the service's terminal must not reach it (a second SIGINT from stop() would lose the trailer).
    const child = spawn(this.opts.ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    child.stderr.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-2_000)));
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => {
        this.fail(error);
        resolve(null);
      });
      child.once('exit', (code) => {
        if (!this.stopping) this.fail(new Error(`ffmpeg exited with code ${code} while recording: ${this.stderrTail.trim()}`));
        resolve(code);
      });
    });
    this.process = child;
  }

  /** Consumes `recordable` on its own plain transport into the next free slot of its kind. */
  private async attach({ producer, source, owner }: RecordableProducer): Promise<void> {
    const slot = this.slots.find((s) => s.kind === producer.kind && !s.producerId);
    if (!slot) {
      this.log(`no free ${producer.kind} track for ${source}: not recorded`);
      return;
    }
    slot.producerId = producer.id;
    slot.owner = owner ?? null;
    const transport = await this.router.createPlainTransport({
      listenInfo: { protocol: 'udp', ip: LOOPBACK },
      rtcpMux: false,
      comedia: false,
    });
    slot.transport = transport;
    await transport.connect({ ip: LOOPBACK, port: slot.port, rtcpPort: slot.port + 1 });
    const codec = (this.router.rtpCapabilities.codecs ?? []).filter(
      (c) => c.mimeType.toLowerCase() === `${producer.kind}/${slot.rtpmap.split('/')[0]!.toLowerCase()}`,
    );
    const consumer = await transport.consume({
      producerId: producer.id,
      rtpCapabilities: { codecs: codec, headerExtensions: [] },
      paused: true,
    });
    slot.consumer = consumer;
    if (this.stopping) return transport.close();
    await consumer.resume();
    if (consumer.kind === 'video') {
      for (const delay of KEYFRAME_RETRIES_MS) {
        setTimeout(() => void consumer.requestKeyFrame().catch(() => undefined), delay).unref();
      }
    }
  }

  private async startKeepalive(): Promise<void> {
    const socket = createSocket('udp4');
    socket.bind(0, LOOPBACK);
    await once(socket, 'listening');
    this.keepalive = socket;
    this.keep(KEEPALIVE_MS);
  }

  private wakeUntilExit(): void {
    const socket = this.keepalive;
    const audio = this.slots.filter((slot) => slot.kind === 'audio');
    const slot = audio.filter((candidate) => !candidate.producerId).at(-1) ?? audio.at(-1);
    if (!socket || !slot) return;
    clearInterval(this.keepaliveTimer);
    const packet = Buffer.alloc(13);
    packet[0] = 0x80;
    packet[1] = slot.payloadType;
    packet.writeUInt32BE(WAKE_SSRC, 8);
    // One Opus frame of 20 ms with no data: silence (RFC 6716 3.1, TOC 0xf8).
    packet[12] = 0xf8;
    let seq = 0;
    this.keepaliveTimer = setInterval(() => {
      packet.writeUInt16BE(seq & 0xffff, 2);
      packet.writeUInt32BE((seq * 960) >>> 0, 4);
      seq++;
      socket.send(packet, slot.port, LOOPBACK);
    }, STOP_WAKE_MS);
  }

  /** Sends ffmpeg an empty RTCP receiver report (RFC 3550 6.4.2) on every track every `intervalMs`; it reads and ignores them. */
  private keep(intervalMs: number): void {
    const socket = this.keepalive;
    if (!socket) return;
    clearInterval(this.keepaliveTimer);
    const report = Buffer.from([0x80, 201, 0, 1, 0, 0, 0, 1]);
    this.keepaliveTimer = setInterval(() => {
      for (const slot of this.slots) socket.send(report, slot.port + 1, LOOPBACK);
    }, intervalMs);
  }

  private closeMedia(): void {
    clearInterval(this.keepaliveTimer);
    this.keepalive?.close();
    this.keepalive = undefined;
    for (const slot of this.slots) slot.transport?.close();
  }

  private async measure(): Promise<RecordedMedia> {
    await fs.promises.rm(`${this.filePath}.sdp`, { force: true });
    const file = await probeRecordedFile(this.opts.ffprobe, this.filePath, this.stderrTail);
    return {
      ...file,
      contentType: 'video/webm',
      // The file's audio streams are the SDP's audio m-lines in order, i.e. the audio slots.
      audioTrackOwners: this.slots.filter((slot) => slot.kind === 'audio').map((slot) => slot.owner ?? null),
    };
  }

  private fail(error: Error): void {
    if (this.stopping) return;
    this.stopping = true;
    this.closeMedia();
    if (this.process && this.process.exitCode === null) this.process.kill('SIGKILL');
    for (const listener of this.failureListeners) listener(error);
  }

  private log(message: string, error?: unknown): void {
    this.opts.logger?.warn(message, { file: path.basename(this.filePath), ...(error ? { error: String(error) } : {}) });
  }
}

function isVp8(producer: types.Producer): boolean {
  return producer.rtpParameters.codecs.some((c) => c.mimeType.toLowerCase() === 'video/vp8');
}
