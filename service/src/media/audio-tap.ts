/**
 * Live audio taps for captions: each microphone producer of a router is consumed on its own plain transport
 * and sent over RTP to a loopback port where an ffmpeg decodes its Opus to 16 kHz mono s16le PCM on stdout.
 * One ffmpeg per microphone, started when the tapping starts or the microphone appears, ended with it.
 * Nothing leaves the machine: RTP goes to 127.0.0.1 and PCM through a pipe.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import type { types } from 'mediasoup';
import type { AudioTapping, MicrophoneTap, TrackOwner } from '../rooms/room-media.interface';
import type { Logger } from '../shared/logger';
import { freePortPair, LOOPBACK, sdpOf, waitForBoundPort } from './ffmpeg';

/** How taps run; every field has a default. */
export interface AudioTapOptions {
  /** The ffmpeg executable; default from PATH. */
  ffmpeg?: string;
  logger?: Logger;
}

/** A producer a tapping may decode, with whose it is. */
export interface TappableProducer {
  producer: types.Producer;
  source: string;
  owner?: TrackOwner;
}

/** ffmpeg's RTP input gives up after 10 s without a packet (a muted microphone): an RTCP receiver report every 2 s keeps it reading. */
const KEEPALIVE_MS = 2_000;

/** The ffmpeg arguments that decode one Opus RTP stream described by the SDP on stdin to 16 kHz mono PCM on stdout, with the least buffering. */
export function decoderArgs(): string[] {
  return [
    ...['-hide_banner', '-loglevel', 'error', '-protocol_whitelist', 'pipe,udp,rtp'],
    // No probing: the SDP says everything, and probing would hold back the first second.
    ...['-probesize', '32', '-analyzeduration', '0', '-fflags', 'nobuffer', '-flags', 'low_delay'],
    ...['-f', 'sdp', '-i', 'pipe:0'],
    ...['-ac', '1', '-ar', '16000', '-f', 's16le', '-flush_packets', '1', 'pipe:1'],
  ];
}

/** One microphone decoded to PCM. */
class ProducerTap implements MicrophoneTap {
  readonly producerId: string;
  readonly owner: TrackOwner | undefined;
  private readonly pcmListeners: ((pcm: Buffer) => void)[] = [];
  private readonly endListeners: (() => void)[] = [];
  private child: ChildProcessWithoutNullStreams | undefined;
  private transport: types.PlainTransport | undefined;
  private ended = false;
  private rtcpPort = 0;

  constructor(
    private readonly router: types.Router,
    { producer, owner }: TappableProducer,
    private readonly keepalive: Keepalive,
    private readonly opts: AudioTapOptions,
  ) {
    this.producerId = producer.id;
    this.owner = owner;
  }

  onPcm(listener: (pcm: Buffer) => void): void {
    this.pcmListeners.push(listener);
  }

  onEnd(listener: () => void): void {
    if (this.ended) listener();
    else this.endListeners.push(listener);
  }

  /** Starts ffmpeg, then the consumer that feeds it (so no early packet is lost). */
  async start(): Promise<void> {
    const port = await freePortPair();
    const transport = await this.router.createPlainTransport({
      listenInfo: { protocol: 'udp', ip: LOOPBACK },
      rtcpMux: false,
      comedia: false,
    });
    this.transport = transport;
    if (this.ended) return transport.close();
    transport.observer.once('close', () => this.close());
    const consumer = await transport.consume({
      producerId: this.producerId,
      rtpCapabilities: { codecs: this.router.rtpCapabilities.codecs!.filter((c) => c.kind === 'audio'), headerExtensions: [] },
      paused: true,
    });
    consumer.observer.once('close', () => this.close());
    if (this.ended) return;
    const codec = consumer.rtpParameters.codecs[0]!;
    const child = spawn(this.opts.ffmpeg ?? 'ffmpeg', decoderArgs(), { stdio: 'pipe' });
    this.child = child;
    child.stdin.on('error', () => undefined);
    child.stdin.end(sdpOf([{ kind: 'audio', port, payloadType: codec.payloadType, rtpmap: 'opus/48000/2' }]));
    child.stdout.on('data', (pcm: Buffer) => {
      for (const listener of this.pcmListeners) listener(pcm);
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    child.once('error', (error) => this.log('ffmpeg could not start for captions', error));
    child.once('exit', (code) => {
      if (!this.ended) this.log(`ffmpeg for captions exited with code ${code}`, stderr.trim());
      this.close();
    });
    await waitForBoundPort(port);
    await transport.connect({ ip: LOOPBACK, port, rtcpPort: port + 1 });
    this.rtcpPort = port + 1;
    this.keepalive.add(this.rtcpPort);
    await consumer.resume();
  }

  /** Ends the tap: the consumer, its transport and ffmpeg; idempotent. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.keepalive.remove(this.rtcpPort);
    this.transport?.close();
    if (this.child && this.child.exitCode === null) this.child.kill('SIGKILL');
    for (const listener of this.endListeners.splice(0)) listener();
  }

  private log(message: string, detail: unknown): void {
    this.opts.logger?.warn(message, { producer_id: this.producerId, detail: String(detail) });
  }
}

/** Empty RTCP receiver reports (RFC 3550 6.4.2) to every tap's ffmpeg, so a silent microphone does not end its input. */
class Keepalive {
  private readonly ports = new Set<number>();
  private socket: Socket | undefined;
  private timer: NodeJS.Timeout | undefined;

  add(rtcpPort: number): void {
    this.ports.add(rtcpPort);
    if (this.socket) return;
    const socket = createSocket('udp4');
    socket.on('error', () => undefined);
    socket.bind(0, LOOPBACK);
    this.socket = socket;
    const report = Buffer.from([0x80, 201, 0, 1, 0, 0, 0, 1]);
    this.timer = setInterval(() => {
      for (const port of this.ports) socket.send(report, port, LOOPBACK);
    }, KEEPALIVE_MS);
    this.timer.unref();
  }

  remove(rtcpPort: number): void {
    this.ports.delete(rtcpPort);
  }

  close(): void {
    clearInterval(this.timer);
    this.socket?.close();
    this.socket = undefined;
  }
}

/** Every microphone of a router, present and future, decoded for live captions until `stop`. */
export class MicrophoneTapping implements AudioTapping {
  private readonly taps = new Map<string, ProducerTap>();
  private readonly keepalive = new Keepalive();
  private readonly closedListeners: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly router: types.Router,
    private readonly listener: (tap: MicrophoneTap) => void,
    private readonly opts: AudioTapOptions = {},
  ) {
    router.observer.once('close', this.routerClosed);
  }

  private readonly routerClosed = (): void => {
    this.stop();
    for (const closed of this.closedListeners.splice(0)) closed();
  };

  /** Taps `tappable` when it is a microphone (other producers are ignored). */
  add(tappable: TappableProducer): void {
    const { producer, source } = tappable;
    if (this.stopped || producer.closed || producer.kind !== 'audio' || source !== 'microphone' || this.taps.has(producer.id)) return;
    const tap = new ProducerTap(this.router, tappable, this.keepalive, this.opts);
    this.taps.set(producer.id, tap);
    tap.onEnd(() => this.taps.delete(producer.id));
    this.listener(tap);
    tap.start().catch((error: unknown) => {
      this.opts.logger?.warn('could not tap a microphone for captions', { producer_id: producer.id, error: String(error) });
      tap.close();
    });
  }

  onClosed(listener: () => void): void {
    this.closedListeners.push(listener);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    // Captions switched off and on again make a new tapping: this one no longer listens to the router.
    this.router.observer.off('close', this.routerClosed);
    for (const tap of [...this.taps.values()]) tap.close();
    this.keepalive.close();
  }
}
