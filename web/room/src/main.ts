import './styles.css';
import { installDebugHandle, type DebugSource } from './debug-handle';
import { mount } from './dom';
import { CredentialError, fetchRoomInfo } from './http-api';
import { pickLocale, setLocale, t } from './i18n';
import type { RoomInfo } from './protocol';
import { RoomEvents } from './room-events';
import { RoomSession } from './room-session';
import { applyTheme, pickTheme } from './theme';
import { prejoinScreen, type JoinChoice } from './ui/prejoin';
import { roomView } from './ui/room-view';
import { endedScreen, focusTitle, unavailableScreen, waitingScreen } from './ui/screens';

/** The meeting code: the last segment of /m/<code>. */
function meetingCode(): string {
  const match = /\/m\/([^/?#]+)/.exec(location.pathname);
  return decodeURIComponent(match?.[1] ?? new URLSearchParams(location.search).get('code') ?? '');
}

function show(el: HTMLElement): void {
  mount(el);
  focusTitle(el);
}

/** Forwards the session's changes to the page's RoomEvents. */
function bridgeEvents(session: RoomSession, events: RoomEvents, code: string): void {
  session.events.on('joined', ({ state }) => {
    events.emit('joined', {
      participant: { identity: state.self.identity, name: state.self.name, role: state.self.role },
      meeting: { code: state.meeting.code || code, title: state.meeting.title },
    });
    events.emit('participant-count', { count: state.participantCount });
    events.emit('recording', { active: state.recording });
  });
  session.events.on('participantCount', ({ count }) => events.emit('participant-count', { count }));
  session.events.on('recording', ({ active }) => events.emit('recording', { active }));
  const last: Record<'audio' | 'video', boolean | null> = { audio: null, video: null };
  session.events.on('local', ({ source }) => {
    if (source === 'screen') return;
    const kind = source === 'microphone' ? 'audio' : 'video';
    const on = session.isOn(source);
    if (last[kind] === on) return;
    last[kind] = on;
    events.emit('media', { kind, on });
  });
  session.events.on('ended', (end) => {
    if (end.kind === 'left') events.emit('left', { reason: end.reason });
    else if (end.kind === 'unavailable') events.emit('left', { reason: 'meeting-ended' });
  });
}

async function run(): Promise<void> {
  const code = meetingCode();
  const params = new URLSearchParams(location.search);
  const host = params.get('host') ?? undefined;
  const invite = params.get('invite') ?? undefined;
  const events = new RoomEvents();
  const debug: DebugSource = { session: null, joinClickedAt: null, firstRemoteFrameAt: null };
  installDebugHandle(debug, events);

  const looked = code ? await fetchRoomInfo(code) : ({ ok: false, reason: 'not_found' } as const);
  if (!looked.ok) return show(unavailableScreen(looked.reason));
  const info: RoomInfo = looked.info;
  document.title = t('page.meetingTitle', { title: info.title });
  // Webinar attendees (anyone but a host) watch and chat; the server decides, the page only skips the preview.
  const withMedia = info.kind === 'meeting' || Boolean(host);

  const join = async (choice: JoinChoice): Promise<string | null> => {
    debug.joinClickedAt = performance.now();
    debug.firstRemoteFrameAt = null;
    const session = new RoomSession({
      code,
      request: { name: invite ? undefined : choice.name, host, invite },
      camera: choice.camera,
      microphone: choice.microphone,
      cameraDeviceId: choice.cameraDeviceId,
      microphoneDeviceId: choice.microphoneDeviceId,
    });
    debug.session = session;
    bridgeEvents(session, events, code);
    let view: HTMLElement | null = null;
    session.events.on('phase', ({ phase }) => {
      if (phase === 'waiting') show(waitingScreen(info.title, () => void session.leave()));
      else if (phase === 'joined' && !view) {
        view = roomView(session, {
          onRemoteFrame: () => {
            debug.firstRemoteFrameAt ??= performance.now();
          },
        });
        mount(view);
      } else if (phase === 'joined' && view && !view.isConnected) mount(view);
    });
    session.events.on('ended', (end) => {
      const canRejoin = end.kind === 'left' && (end.reason === 'left' || end.reason === 'replaced');
      show(endedScreen(end, canRejoin ? () => location.reload() : null));
    });
    try {
      await session.start();
      return null;
    } catch (err) {
      session.abort();
      debug.session = null;
      if (err instanceof CredentialError && err.failure.kind === 'unavailable') {
        show(unavailableScreen(err.failure.reason));
        return null;
      }
      if (err instanceof CredentialError)
        return err.failure.kind === 'network' ? t('prejoin.joinFailed', { error: err.failure.message }) : err.message;
      return t('prejoin.joinFailed', { error: err instanceof Error ? err.message : String(err) });
    }
  };

  show(prejoinScreen({ info, name: params.get('name') ?? '', withMedia, nameFixed: Boolean(invite), onJoin: join }));
  document.getElementById('display-name')?.focus();
}

setLocale(pickLocale(location, navigator.languages));
applyTheme(pickTheme());
document.title = t('page.title');
run().catch((err) => {
  const el = document.createElement('p');
  el.className = 'fatal';
  el.setAttribute('role', 'alert');
  el.textContent = t('page.loadFailed', { error: err instanceof Error ? err.message : String(err) });
  mount(el);
});
