import { h, hueOf, initials } from '../dom';
import { t } from '../i18n';
import { icon } from './icons';

/** One video tile: a person's camera (or their avatar when it is off) or a screen share, with a name label. */
export class Tile {
  readonly el: HTMLElement;
  private readonly video: HTMLVideoElement;
  private readonly avatar: HTMLElement;
  private readonly label: HTMLElement;
  private readonly micIcon: HTMLElement;
  private track: MediaStreamTrack | null = null;
  private videoPaused = false;
  private onFirstFrame: (() => void) | null = null;

  constructor(
    readonly peerId: string,
    readonly kind: 'camera' | 'screen',
    private name: string,
    private readonly isSelf: boolean,
  ) {
    this.video = h('video', { autoplay: true, playsinline: true, muted: true, class: isSelf && kind === 'camera' ? 'mirrored' : null });
    this.video.muted = true;
    this.avatar = h('div', { class: 'avatar', 'aria-hidden': 'true' });
    this.micIcon = h('span', { class: 'mic-state', hidden: true, title: t('device.microphoneOff') }, icon('micOff'));
    this.label = h('span', { class: 'tile-name' });
    this.el = h(
      'figure',
      {
        class: `tile ${kind}`,
        'data-testid': kind === 'screen' ? 'screen-tile' : 'tile',
        'data-peer-id': peerId,
        'data-self': isSelf ? 'true' : null,
      },
      this.video,
      this.avatar,
      h('figcaption', { class: 'tile-label' }, this.micIcon, this.label),
    );
    this.setName(name);
    this.update();
  }

  /** The rendered width in device pixels, for choosing a simulcast layer. */
  get pixelWidth(): number {
    return this.el.clientWidth * (window.devicePixelRatio || 1);
  }

  /** Changes the shown name. */
  setName(name: string): void {
    this.name = name;
    const text =
      this.kind === 'screen'
        ? this.isSelf
          ? t('room.youPresenting')
          : t('room.peerPresenting', { name })
        : this.isSelf
          ? t('room.nameYou', { name })
          : name;
    this.label.textContent = text;
    this.el.setAttribute('aria-label', text);
    this.avatar.textContent = initials(name);
    this.avatar.style.setProperty('--hue', String(hueOf(name)));
  }

  /** Shows `track` (null: the avatar). `onFirstFrame` runs when its first frame is rendered. */
  setVideo(track: MediaStreamTrack | null, onFirstFrame?: () => void): void {
    if (track === this.track) return;
    this.track = track;
    this.video.srcObject = track ? new MediaStream([track]) : null;
    this.onFirstFrame = onFirstFrame ?? null;
    if (track && this.onFirstFrame && 'requestVideoFrameCallback' in this.video) {
      this.video.requestVideoFrameCallback(() => {
        this.onFirstFrame?.();
        this.onFirstFrame = null;
      });
    }
    if (track) void this.video.play().catch(() => undefined);
    this.update();
  }

  /** Whether the sender muted this video (the avatar shows instead). */
  setVideoPaused(paused: boolean): void {
    this.videoPaused = paused;
    this.update();
  }

  /** Shows the muted-microphone mark. */
  setMicMuted(muted: boolean): void {
    this.micIcon.hidden = !muted;
  }

  /** The active-speaker highlight. */
  setSpeaking(speaking: boolean): void {
    this.el.classList.toggle('speaking', speaking);
  }

  private update(): void {
    const showVideo = Boolean(this.track) && !this.videoPaused;
    this.video.hidden = !showVideo;
    this.avatar.hidden = showVideo;
    this.el.classList.toggle('no-video', !showVideo);
  }
}
