import { spawn, type ChildProcess } from 'node:child_process';
import type { RoomMedia, TrackOwner } from '../rooms/room-media.interface';

/** RTP parameters of the Opus stream `startRtpSender` sends, for `produce`. */
export const OPUS_RTP = {
  codecs: [{ mimeType: 'audio/opus', payloadType: 111, clockRate: 48_000, channels: 2, parameters: {}, rtcpFeedback: [] }],
  encodings: [{ ssrc: 11_111_111 }],
  rtcp: { cname: 'rtp-sender' },
};

/** RTP parameters of the VP8 stream `startRtpSender` sends, for `produce`. */
export const VP8_RTP = {
  codecs: [
    {
      mimeType: 'video/VP8',
      payloadType: 96,
      clockRate: 90_000,
      parameters: {},
      rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, { type: 'ccm', parameter: 'fir' }],
    },
  ],
  encodings: [{ ssrc: 22_222_222 }],
  rtcp: { cname: 'rtp-sender' },
};

/** A running ffmpeg that sends real media as RTP. */
export interface RtpSender {
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Sends real Opus (a tone, or `wav` looped) or VP8 (a test pattern, a keyframe a second) in real time as
 * RTP to a plain send transport at `port`, with ffmpeg; `ssrc` defaults to the one in OPUS_RTP/VP8_RTP.
 */
export function startRtpSender(
  kind: 'audio' | 'video',
  port: number,
  opts: { wav?: string; ssrc?: number; frequency?: number } = {},
): RtpSender {
  const input =
    kind === 'audio'
      ? opts.wav
        ? ['-stream_loop', '-1', '-i', opts.wav]
        : ['-f', 'lavfi', '-i', `sine=frequency=${opts.frequency ?? 440}:sample_rate=48000`]
      : ['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=15'];
  const encode =
    kind === 'audio'
      ? [
          '-c:a',
          'libopus',
          '-ar',
          '48000',
          '-ac',
          '2',
          '-b:a',
          '32k',
          '-payload_type',
          '111',
          '-ssrc',
          String(opts.ssrc ?? OPUS_RTP.encodings[0]!.ssrc),
        ]
      : [
          '-c:v',
          'libvpx',
          '-deadline',
          'realtime',
          '-cpu-used',
          '8',
          '-b:v',
          '200k',
          '-g',
          '15',
          '-payload_type',
          '96',
          '-ssrc',
          String(opts.ssrc ?? VP8_RTP.encodings[0]!.ssrc),
        ];
  const args = [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-re',
    ...input,
    ...encode,
    '-f',
    'rtp',
    // ffmpeg's RTCP goes to port+1, where nothing listens: a comedia transport must learn the RTP socket's address, not the RTCP one's.
    `rtp://127.0.0.1:${port}?pkt_size=1200`,
  ];
  const child = spawn('ffmpeg', args, { stdio: 'ignore' });
  return {
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** Has `peerId` send a real Opus microphone (ffmpeg's tone) into `media` over a plain transport; resolves once its producer exists. */
export async function sendMicrophone(
  media: Pick<RoomMedia, 'createPlainTransport' | 'produce'>,
  peerId: string,
  owner?: TrackOwner,
): Promise<{ producerId: string; sender: RtpSender }> {
  const transport = await media.createPlainTransport(peerId, 'send', '127.0.0.1');
  const input = { transportId: transport.id, rtpParameters: OPUS_RTP, paused: false, owner };
  const producerId = await media.produce(peerId, { ...input, kind: 'audio', source: 'microphone' });
  return { producerId, sender: startRtpSender('audio', transport.local.port) };
}
