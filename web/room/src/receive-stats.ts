/** Receive-side statistics for tests and debugging, summed over the receive transport's inbound RTP streams. */
export interface ReceiveStats {
  peerId: string | null;
  transportId: string | null;
  audio: { bytesReceived: number; packetsReceived: number; streams: number };
  video: { bytesReceived: number; framesDecoded: number; streams: number; frameWidth: number };
}

/** One entry of an RTCStatsReport, as far as the sums read it. */
interface InboundEntry {
  type?: string;
  mid?: string;
  kind?: string;
  bytesReceived?: number;
  packetsReceived?: number;
  framesDecoded?: number;
  frameWidth?: number;
}

/** Sums a stats report's inbound RTP streams per kind (bytes, packets, frames decoded, widest frame). */
export function sumInboundRtp(report: Iterable<object>): Pick<ReceiveStats, 'audio' | 'video'> {
  const audio = { bytesReceived: 0, packetsReceived: 0, streams: 0 };
  const video = { bytesReceived: 0, framesDecoded: 0, streams: 0, frameWidth: 0 };
  for (const s of report as Iterable<InboundEntry>) {
    // mediasoup's bandwidth probe arrives as a receiver of its own ("probator"): not media.
    if (s.type !== 'inbound-rtp' || s.mid === 'probator') continue;
    if (s.kind === 'audio') {
      audio.bytesReceived += s.bytesReceived ?? 0;
      audio.packetsReceived += s.packetsReceived ?? 0;
      audio.streams++;
    } else if (s.kind === 'video') {
      video.bytesReceived += s.bytesReceived ?? 0;
      video.framesDecoded += s.framesDecoded ?? 0;
      video.frameWidth = Math.max(video.frameWidth, s.frameWidth ?? 0);
      video.streams++;
    }
  }
  return { audio, video };
}
