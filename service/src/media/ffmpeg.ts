/** ffmpeg's side of a recording: the SDP it reads, loopback port pairs for its RTP input, and ffprobe's view of the finished file. */
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import fs from 'node:fs';
import { AppError } from '../shared/errors';

/** The address the SFU sends recorded tracks to and ffmpeg listens on. */
export const LOOPBACK = '127.0.0.1';
const PORT_WAIT_MS = 5_000;

/** One m-line of the SDP: a track on its own port. */
export interface SdpSlot {
  kind: 'audio' | 'video';
  port: number;
  payloadType: number;
  rtpmap: string;
}

interface ProbeInfo {
  format?: { duration?: string };
  streams?: { codec_type?: string }[];
}

/** The SDP ffmpeg reads: one m-line per slot, each on its own port (RTCP on port+1). */
export function sdpOf(slots: SdpSlot[]): string {
  const lines = ['v=0', `o=- 0 0 IN IP4 ${LOOPBACK}`, 's=svc recording', `c=IN IP4 ${LOOPBACK}`, 't=0 0'];
  for (const slot of slots) {
    lines.push(`m=${slot.kind} ${slot.port} RTP/AVP ${slot.payloadType}`, `a=rtpmap:${slot.payloadType} ${slot.rtpmap}`, 'a=recvonly');
  }
  return `${lines.join('\n')}\n`;
}

async function bindable(port: number): Promise<boolean> {
  const socket = createSocket('udp4');
  try {
    socket.bind(port, LOOPBACK);
    await once(socket, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    socket.close();
  }
}

/** An even ephemeral loopback port whose successor is free too (ffmpeg binds RTP on it and RTCP on port+1). */
export async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const socket = createSocket('udp4');
    socket.bind(0, LOOPBACK);
    await once(socket, 'listening');
    const port = socket.address().port;
    socket.close();
    if (port % 2 === 0 && port < 65_535 && (await bindable(port)) && (await bindable(port + 1))) return port;
  }
  throw new AppError('internal_error', 'No free pair of UDP ports on the loopback interface for the recorder');
}

/** Waits until ffmpeg has bound `port` (our own bind then fails), so no early RTP is lost. */
export async function waitForBoundPort(port: number): Promise<void> {
  const giveUpAt = Date.now() + PORT_WAIT_MS;
  while (Date.now() < giveUpAt) {
    if (!(await bindable(port))) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new AppError('internal_error', `ffmpeg did not open its RTP port ${port} within ${PORT_WAIT_MS} ms`);
}

/** What ffprobe finds in a finished recording; internal_error when ffmpeg wrote nothing or the file is unreadable (`stderrTail`: ffmpeg's last words). */
export async function probeRecordedFile(
  ffprobe: string,
  filePath: string,
  stderrTail: string,
): Promise<{ sizeBytes: number; durationSeconds: number; audioTracks: number; videoTracks: number }> {
  const stat = await fs.promises.stat(filePath).catch(() => null);
  if (!stat || stat.size === 0) throw new AppError('internal_error', `ffmpeg wrote no file: ${stderrTail.trim() || 'no media arrived'}`);
  const probe = spawnSync(ffprobe, ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type', '-of', 'json', filePath], {
    encoding: 'utf8',
  });
  const info = probe.status === 0 ? (JSON.parse(probe.stdout) as ProbeInfo) : null;
  const duration = Number(info?.format?.duration);
  if (!info || !Number.isFinite(duration) || duration <= 0) {
    throw new AppError('internal_error', `The recorded file is unreadable: ${probe.stderr?.trim() || 'no duration'}`);
  }
  const streams = info.streams ?? [];
  return {
    sizeBytes: stat.size,
    // Whole seconds, as the API reports them.
    durationSeconds: Math.max(1, Math.round(duration)),
    audioTracks: streams.filter((s) => s.codec_type === 'audio').length,
    videoTracks: streams.filter((s) => s.codec_type === 'video').length,
  };
}
