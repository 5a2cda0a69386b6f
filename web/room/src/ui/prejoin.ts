import { h, hueOf, initials } from '../dom';
import { t } from '../i18n';
import { describeMediaError, levelMeter, listDevices, openCamera, openMicrophone } from '../local-media';
import { ROOM_LIMITS, type RoomInfo } from '../protocol';
import { icon } from './icons';

/** What the pre-join screen hands to the room: the name and the tracks the user chose (owned by the caller from then on). */
export interface JoinChoice {
  name: string;
  camera: MediaStreamTrack | null;
  microphone: MediaStreamTrack | null;
  cameraDeviceId?: string;
  microphoneDeviceId?: string;
}

/** Options of the pre-join screen. */
export interface PrejoinOptions {
  info: RoomInfo;
  name: string;
  /** False for webinar attendees: no preview, no devices. */
  withMedia: boolean;
  /** Registrants' and embed tokens' names are fixed: no name field (the hint names `name` when known). */
  nameFixed: boolean;
  /** Shown under the title: when a meeting that has not opened yet starts. */
  notice?: HTMLElement | null;
  /** Resolves with an error message to show, or null once the page moved on. */
  onJoin(choice: JoinChoice): Promise<string | null>;
}

/** The pre-join screen: title, name, camera and microphone preview with device choice and toggles, Join. */
export function prejoinScreen(opts: PrejoinOptions): HTMLElement {
  let camera: MediaStreamTrack | null = null;
  let microphone: MediaStreamTrack | null = null;
  let cameraOn = opts.withMedia;
  let micOn = opts.withMedia;
  let meter: { stop(): void } | null = null;
  let handedOver = false;

  const video = h('video', { class: 'preview-video mirrored', autoplay: true, playsinline: true, muted: true });
  video.muted = true;
  const avatar = h('div', { class: 'avatar large', 'aria-hidden': 'true' }, initials(opts.name || '?'));
  const previewNote = h('p', { class: 'preview-note' }, t('prejoin.cameraOff'));
  const level = h('div', { class: 'level', 'aria-hidden': 'true' }, h('span', { class: 'level-bar' }));
  const camButton = h('button', { type: 'button', class: 'round-btn', 'data-testid': 'prejoin-camera' });
  const micButton = h('button', { type: 'button', class: 'round-btn', 'data-testid': 'prejoin-microphone' });
  const cameraSelect = h('select', { id: 'camera-select', 'data-testid': 'camera-select' });
  const micSelect = h('select', { id: 'microphone-select', 'data-testid': 'microphone-select' });
  const mediaError = h('p', { class: 'hint warn', role: 'status' });
  const nameInput = h('input', {
    id: 'display-name',
    type: 'text',
    autocomplete: 'name',
    maxlength: ROOM_LIMITS.maxNameLength,
    required: true,
    'data-testid': 'name-input',
    value: opts.name,
  });
  const joinButton = h('button', { type: 'submit', class: 'btn primary wide', 'data-testid': 'join' }, t('prejoin.join'));
  const formError = h('p', { class: 'error', role: 'alert', id: 'join-error' });

  const render = () => {
    const showVideo = Boolean(camera && cameraOn);
    video.hidden = !showVideo;
    avatar.hidden = showVideo;
    previewNote.hidden = showVideo;
    avatar.textContent = initials(nameInput.value || '?');
    avatar.style.setProperty('--hue', String(hueOf(nameInput.value || '?')));
    camButton.replaceChildren(icon(cameraOn ? 'cam' : 'camOff'));
    camButton.setAttribute('aria-label', t(cameraOn ? 'device.turnCameraOff' : 'device.turnCameraOn'));
    camButton.setAttribute('aria-pressed', String(!cameraOn));
    camButton.classList.toggle('off', !cameraOn);
    micButton.replaceChildren(icon(micOn ? 'mic' : 'micOff'));
    micButton.setAttribute('aria-label', t(micOn ? 'device.turnMicrophoneOff' : 'device.turnMicrophoneOn'));
    micButton.setAttribute('aria-pressed', String(!micOn));
    micButton.classList.toggle('off', !micOn);
    level.hidden = !(microphone && micOn);
  };

  const setCamera = (track: MediaStreamTrack | null) => {
    camera?.stop();
    camera = track;
    video.srcObject = track ? new MediaStream([track]) : null;
    render();
  };
  const setMicrophone = (track: MediaStreamTrack | null) => {
    meter?.stop();
    meter = null;
    microphone?.stop();
    microphone = track;
    if (track) {
      const bar = level.firstElementChild as HTMLElement;
      meter = levelMeter(track, (l) => bar.style.setProperty('--level', l.toFixed(3)));
    }
    render();
  };

  const fillSelect = (
    select: HTMLSelectElement,
    devices: MediaDeviceInfo[],
    current: MediaStreamTrack | null,
    kind: 'camera' | 'microphone',
  ) => {
    const currentId = current?.getSettings().deviceId;
    select.replaceChildren(
      ...devices.map((d, i) =>
        h('option', { value: d.deviceId, selected: d.deviceId === currentId }, d.label || t(`device.${kind}Number`, { number: i + 1 })),
      ),
    );
    // Without a label the browser has not allowed access: there is nothing to choose from yet.
    const usable = devices.some((d) => d.label);
    select.disabled = !usable;
    if (!devices.length)
      select.replaceChildren(h('option', { value: '' }, t(kind === 'camera' ? 'device.noCamera' : 'device.noMicrophone')));
    else if (!usable) select.replaceChildren(h('option', { value: '' }, t(`device.${kind}Unavailable`)));
  };

  const refreshDevices = async () => {
    const { cameras, microphones } = await listDevices();
    fillSelect(cameraSelect, cameras, camera, 'camera');
    fillSelect(micSelect, microphones, microphone, 'microphone');
  };

  const start = async () => {
    if (!opts.withMedia) return;
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: { ideal: 1280 }, height: { ideal: 720 } } });
      if (handedOver) return stream.getTracks().forEach((t) => t.stop());
      setCamera(stream.getVideoTracks()[0] ?? null);
      setMicrophone(stream.getAudioTracks()[0] ?? null);
    } catch {
      // One of the two may still work on its own (no camera on this machine, or only the camera blocked).
      const [cam, mic] = await Promise.allSettled([openCamera(), openMicrophone()]);
      if (handedOver) return;
      setCamera(cam.status === 'fulfilled' ? cam.value : null);
      setMicrophone(mic.status === 'fulfilled' ? mic.value : null);
      if (cam.status === 'rejected' && mic.status === 'rejected') {
        cameraOn = micOn = false;
        mediaError.textContent = describeMediaError(cam.reason, 'both');
      } else if (cam.status === 'rejected') {
        cameraOn = false;
        mediaError.textContent = describeMediaError(cam.reason, 'camera');
      } else if (mic.status === 'rejected') {
        micOn = false;
        mediaError.textContent = describeMediaError(mic.reason, 'microphone');
      }
      render();
    }
    await refreshDevices().catch(() => undefined);
  };

  camButton.addEventListener('click', async () => {
    cameraOn = !cameraOn;
    if (!cameraOn) setCamera(null);
    else {
      try {
        setCamera(await openCamera(cameraSelect.value || undefined));
        mediaError.textContent = '';
      } catch (err) {
        cameraOn = false;
        mediaError.textContent = describeMediaError(err, 'camera');
      }
    }
    render();
  });
  micButton.addEventListener('click', async () => {
    micOn = !micOn;
    if (!micOn) setMicrophone(null);
    else {
      try {
        setMicrophone(await openMicrophone(micSelect.value || undefined));
        mediaError.textContent = '';
      } catch (err) {
        micOn = false;
        mediaError.textContent = describeMediaError(err, 'microphone');
      }
    }
    render();
  });
  cameraSelect.addEventListener('change', async () => {
    if (!cameraOn) return;
    try {
      setCamera(await openCamera(cameraSelect.value));
    } catch (err) {
      mediaError.textContent = describeMediaError(err, 'camera');
    }
  });
  micSelect.addEventListener('change', async () => {
    if (!micOn) return;
    try {
      setMicrophone(await openMicrophone(micSelect.value));
    } catch (err) {
      mediaError.textContent = describeMediaError(err, 'microphone');
    }
  });
  nameInput.addEventListener('input', () => {
    formError.textContent = '';
    nameInput.removeAttribute('aria-invalid');
    render();
  });

  const form = h(
    'form',
    { class: 'prejoin-form', 'aria-describedby': 'join-error', novalidate: true },
    h('p', { class: 'eyebrow' }, t(opts.info.kind === 'webinar' ? 'prejoin.eyebrowWebinar' : 'prejoin.eyebrow')),
    h('h1', { class: 'meeting-title', 'data-testid': 'meeting-title' }, opts.info.title),
    opts.notice ?? null,
    opts.info.waiting_room ? h('p', { class: 'hint' }, t('prejoin.waitingRoom')) : null,
    opts.nameFixed
      ? h('p', { class: 'hint' }, opts.name ? t('prejoin.joinAs', { name: opts.name }) : t('prejoin.nameFixed'))
      : h('label', { for: 'display-name' }, t('prejoin.yourName')),
    opts.nameFixed ? null : nameInput,
    opts.withMedia ? h('label', { for: 'camera-select' }, t('device.camera')) : null,
    opts.withMedia ? cameraSelect : null,
    opts.withMedia ? h('label', { for: 'microphone-select' }, t('device.microphone')) : null,
    opts.withMedia ? micSelect : null,
    mediaError,
    joinButton,
    formError,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const name = nameInput.value.trim().replace(/\s+/g, ' ');
    if (!name && !opts.nameFixed) {
      formError.textContent = t('prejoin.nameRequired');
      nameInput.setAttribute('aria-invalid', 'true');
      nameInput.focus();
      return;
    }
    joinButton.disabled = true;
    joinButton.textContent = t('prejoin.joining');
    await devicesReady.catch(() => undefined);
    handedOver = true;
    meter?.stop();
    meter = null;
    const choice: JoinChoice = {
      name,
      camera: cameraOn ? camera : null,
      microphone: micOn ? microphone : null,
      cameraDeviceId: cameraSelect.value || undefined,
      microphoneDeviceId: micSelect.value || undefined,
    };
    if (!cameraOn) camera?.stop();
    if (!micOn) microphone?.stop();
    const error = await opts.onJoin(choice);
    if (error === null) return;
    // Still here: the tracks come back to this screen.
    handedOver = false;
    camera = choice.camera;
    microphone = null;
    setMicrophone(choice.microphone);
    formError.textContent = error;
    joinButton.disabled = false;
    joinButton.textContent = t('prejoin.join');
    render();
  });

  const preview = h(
    'div',
    { class: 'preview' },
    video,
    avatar,
    previewNote,
    level,
    h('div', { class: 'preview-controls' }, micButton, camButton),
  );
  render();
  // Join waits for this: a quick click must not join without the camera and microphone that are still opening.
  const devicesReady = start();
  return h(
    'section',
    { class: 'screen', 'data-testid': 'prejoin' },
    h('div', { class: `card prejoin${opts.withMedia ? '' : ' no-media'}` }, opts.withMedia ? preview : null, form),
  );
}

/** Your own camera (mirrored) or, when it is off, your initials: what the waiting room shows while a host decides. */
export function selfPreview(camera: MediaStreamTrack | null, name: string): HTMLElement {
  const preview = h('div', { class: 'preview self-preview', 'data-testid': 'self-preview' });
  if (camera) {
    const video = h('video', { class: 'preview-video mirrored', autoplay: true, playsinline: true, muted: true });
    video.muted = true;
    video.srcObject = new MediaStream([camera]);
    preview.append(video);
  } else {
    const avatar = h('div', { class: 'avatar large', 'aria-hidden': 'true' }, initials(name || '?'));
    avatar.style.setProperty('--hue', String(hueOf(name || '?')));
    preview.append(avatar, h('p', { class: 'preview-note' }, t('prejoin.cameraOff')));
  }
  return preview;
}
