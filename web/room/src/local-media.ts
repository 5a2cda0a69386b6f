import { t } from './i18n';

/** The capture devices the browser lists, by kind. */
export interface DeviceLists {
  cameras: MediaDeviceInfo[];
  microphones: MediaDeviceInfo[];
}

/** Cameras and microphones; labels are empty until the page was granted access once. */
export async function listDevices(): Promise<DeviceLists> {
  const all = await navigator.mediaDevices.enumerateDevices();
  return { cameras: all.filter((d) => d.kind === 'videoinput'), microphones: all.filter((d) => d.kind === 'audioinput') };
}

/** A camera track, 720p at most (the send side makes the smaller simulcast layers). */
export async function openCamera(deviceId?: string): Promise<MediaStreamTrack> {
  const stream = await navigator.mediaDevices.getUserMedia({
    video: {
      deviceId: deviceId ? { exact: deviceId } : undefined,
      width: { ideal: 1280 },
      height: { ideal: 720 },
      frameRate: { ideal: 30, max: 30 },
    },
  });
  return stream.getVideoTracks()[0]!;
}

/** A microphone track with echo cancellation and noise suppression. */
export async function openMicrophone(deviceId?: string): Promise<MediaStreamTrack> {
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { deviceId: deviceId ? { exact: deviceId } : undefined, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  });
  return stream.getAudioTracks()[0]!;
}

/** A screen, window or tab to share; null when the user cancelled the picker. */
export async function openScreen(): Promise<MediaStreamTrack | null> {
  try {
    const stream = await navigator.mediaDevices.getDisplayMedia({ video: { frameRate: { ideal: 15, max: 30 } }, audio: false });
    return stream.getVideoTracks()[0] ?? null;
  } catch (err) {
    if (err instanceof DOMException && (err.name === 'NotAllowedError' || err.name === 'AbortError')) return null;
    throw err;
  }
}

/** A short sentence for a getUserMedia failure of the camera, the microphone or both. */
export function describeMediaError(err: unknown, what: 'camera' | 'microphone' | 'both'): string {
  const name = err instanceof DOMException ? err.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return t(`mediaError.blocked.${what}`);
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return t(`mediaError.notFound.${what}`);
  if (name === 'NotReadableError') return t(`mediaError.inUse.${what}`);
  return t(`mediaError.failed.${what}`);
}

/** A live microphone level (0..1) for the level meter; `stop` releases the audio graph. */
export function levelMeter(track: MediaStreamTrack, onLevel: (level: number) => void): { stop(): void } {
  const ctx = new AudioContext();
  const source = ctx.createMediaStreamSource(new MediaStream([track]));
  const analyser = ctx.createAnalyser();
  analyser.fftSize = 512;
  source.connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  let frame = 0;
  const tick = () => {
    analyser.getFloatTimeDomainData(samples);
    let sum = 0;
    for (const s of samples) sum += s * s;
    onLevel(Math.min(1, Math.sqrt(sum / samples.length) * 4));
    frame = requestAnimationFrame(tick);
  };
  tick();
  return {
    stop() {
      cancelAnimationFrame(frame);
      source.disconnect();
      void ctx.close();
    },
  };
}
