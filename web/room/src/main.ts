import './styles.css';
import { installDebugHandle, type DebugSource } from './debug-handle';
import { mount } from './dom';
import { notOpenScreen, startsAtNotice, waitForOpening } from './early-join';
import { EmbedBridge } from './embed-bridge';
import { readEmbedConfig, type EmbedErrorReason } from './embed-protocol';
import { forwardHandsAndReactions } from './features/hands/embed-events';
import { setHand } from './features/hands/hands';
import { refusal } from './features/moderation/refusal';
import { sendReaction } from './features/reactions/reactions';
import { CredentialError, fetchRoomInfo } from './http-api';
import { pickLocale, setLocale, t } from './i18n';
import type { CredentialRequest, RoomInfo } from './protocol';
import { forgetHostLink, takeHostLink } from './host-link';
import { RoomEvents } from './room-events';
import { RoomSession } from './room-session';
import { applyTheme, pickTheme } from './theme';
import { prejoinScreen, selfPreview, type JoinChoice } from './ui/prejoin';
import { roomView, type RoomView } from './ui/room-view';
import { endedScreen, focusTitle, insecureScreen, unavailableScreen, waitingScreen } from './ui/screens';

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
  session.events.on('caption', (caption) => events.emit('caption', caption));
  const last: Record<'audio' | 'video', boolean | null> = { audio: null, video: null };
  session.events.on('local', ({ source }) => {
    if (source === 'screen') return;
    const kind = source === 'microphone' ? 'audio' : 'video';
    const on = session.isOn(source);
    if (last[kind] === on) return;
    last[kind] = on;
    events.emit('media', { kind, on });
  });
  let breakout: { id: string; name: string } | null = null;
  session.events.on('breakoutMoved', ({ room }) => {
    // A reconnect back into the same breakout room is no move.
    if (breakout?.id === room?.id) return;
    if (breakout) events.emit('breakout', { action: 'left', room: breakout });
    if (room) events.emit('breakout', { action: 'joined', room });
    breakout = room;
  });
  session.events.on('poll', ({ change, poll }) => {
    if (change === 'pollResults') return;
    const options = poll.options.map(({ id, text, votes }) => ({ id, text, votes }));
    const { id, question, multiple, anonymous } = poll;
    events.emit('poll', { action: change === 'pollOpened' ? 'opened' : 'closed', poll: { id, question, multiple, anonymous, options } });
  });
  session.events.on('ended', (end) => {
    if (end.kind === 'left') events.emit('left', { reason: end.reason });
    else if (end.kind === 'unavailable') events.emit('left', { reason: 'meeting-ended' });
  });
}

const ERROR_MESSAGES: Record<EmbedErrorReason, string> = {
  not_found: 'The meeting does not exist',
  ended: 'The meeting has ended',
  cancelled: 'The meeting was cancelled',
  token_invalid: 'The embed token is not valid',
  token_expired: 'The embed token has expired',
  origin_not_allowed: 'This origin is not allowed to embed the meeting',
};

/** Shows why the room cannot be joined, and tells an embedding page. */
function refuse(reason: EmbedErrorReason, bridge: EmbedBridge | null): void {
  show(unavailableScreen(reason));
  bridge?.post('error', { reason, message: ERROR_MESSAGES[reason] });
}

async function run(): Promise<void> {
  // Without a secure context the browser has no camera, microphone or device list: say so instead of failing later.
  if (!window.isSecureContext) return show(insecureScreen(location));
  // In a frame the service serves this page with an embed config: the code, token and parent come from it.
  const embed = readEmbedConfig();
  const code = embed ? (embed.code ?? '') : meetingCode();
  const params = new URLSearchParams(location.search);
  let hostLink = embed ? null : takeHostLink(code, location, history);
  const host = hostLink?.host;
  const invite = embed ? undefined : (params.get('invite') ?? undefined);
  const events = new RoomEvents();
  const debug: DebugSource = { session: null, joinClickedAt: null, firstRemoteFrameAt: null };
  installDebugHandle(debug, events);

  // What the embedding page's commands act on; mute/unmute before joining decide what the join starts with.
  let current: { session: RoomSession | null; view: RoomView | null } = { session: null, view: null };
  const mutedBeforeJoin: Partial<Record<'audio' | 'video', boolean>> = {};
  // The embedding page's `join` command: the pre-join screen's Join, now or as soon as that screen is up.
  let joinAsked = false;
  const prejoinForm = () => document.querySelector<HTMLFormElement>('[data-testid=prejoin] form.prejoin-form');
  const inRoom = (act: (session: RoomSession) => Promise<void>) => {
    if (current.session?.phase === 'joined') void act(current.session).catch(() => undefined);
  };
  const bridge = embed?.parentOrigin
    ? new EmbedBridge(embed.parentOrigin, {
        setMuted(kind, muted) {
          const session = current.session;
          if (session?.phase !== 'joined') mutedBeforeJoin[kind] = muted;
          else void (kind === 'audio' ? session.setMicrophone(!muted) : session.setCamera(!muted)).catch(() => undefined);
        },
        leave: () => void current.session?.leave(),
        toggleChat: () => current.view?.toggleChat(),
        setTheme: applyTheme,
        join: () => {
          joinAsked = true;
          if (!current.session) prejoinForm()?.requestSubmit();
        },
        setHand: (raised) => inRoom((session) => setHand(session, raised)),
        react: (emoji) => inRoom((session) => sendReaction(session, emoji)),
      })
    : null;
  bridge?.forward(events);
  if (embed?.error) return refuse(embed.error, bridge);

  const looked = code ? await fetchRoomInfo(code) : ({ ok: false, reason: 'not_found' } as const);
  if (!looked.ok) return refuse(looked.reason, bridge);
  const info: RoomInfo = looked.info;
  document.title = t('page.meetingTitle', { title: info.title });
  // Webinar attendees (anyone but a host) watch and chat; the server decides, the page only skips the preview.
  const withMedia = info.kind === 'meeting' || Boolean(host);

  const join = async (choice: JoinChoice): Promise<string | null> => {
    debug.joinClickedAt = performance.now();
    debug.firstRemoteFrameAt = null;
    const request: CredentialRequest = embed?.token
      ? { embed: embed.token }
      : { name: invite ? undefined : choice.name, host: hostLink?.host, holder: hostLink?.holder, invite };
    const session = new RoomSession({
      code,
      request,
      camera: withoutMuted(choice.camera, mutedBeforeJoin.video),
      microphone: withoutMuted(choice.microphone, mutedBeforeJoin.audio),
      cameraDeviceId: choice.cameraDeviceId,
      microphoneDeviceId: choice.microphoneDeviceId,
    });
    debug.session = session;
    current = { session, view: null };
    bridgeEvents(session, events, code);
    forwardHandsAndReactions(session, events);
    let view: RoomView | null = null;
    session.events.on('phase', ({ phase }) => {
      if (phase === 'waiting')
        show(
          waitingScreen(info.title, () => void session.leave(), withMedia ? selfPreview(session.localTrack('camera'), choice.name) : null),
        );
      else if (phase === 'joined' && !view) {
        view = roomView(session, {
          onRemoteFrame: () => {
            debug.firstRemoteFrameAt ??= performance.now();
          },
          features: embed?.features,
        });
        current.view = view;
        mount(view.el);
        unmuteAsAskedBeforeJoin(session, mutedBeforeJoin);
      } else if (phase === 'joined' && view && !view.el.isConnected) mount(view.el);
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
        refuse(err.failure.reason, bridge);
        return null;
      }
      // Another browser redeemed this host link first: say so; Join again comes in as a guest.
      if (err instanceof CredentialError && err.failure.kind === 'host_link_taken') {
        hostLink = null;
        forgetHostLink(code);
        return err.message;
      }
      // Too early: say when it starts, look again now and then, and join by itself once it opens.
      if (err instanceof CredentialError && err.failure.kind === 'not_open') {
        const stop = new AbortController();
        show(notOpenScreen(info.title, err.failure.startsAt, () => stop.abort()));
        const opening = await waitForOpening(code, err.failure.opensAt, stop.signal);
        if (opening.kind === 'open') return join(choice);
        if (opening.kind === 'unavailable') {
          refuse(opening.reason, bridge);
          return null;
        }
        show(prejoin);
        return '';
      }
      // The page was served for a valid token, so a refusal now means it expired while the guest waited.
      if (err instanceof CredentialError && err.failure.kind === 'unauthorized' && embed?.token) {
        refuse('token_expired', bridge);
        return null;
      }
      if (err instanceof CredentialError)
        return err.failure.kind === 'network' ? t('prejoin.joinFailed', { error: err.failure.message }) : err.message;
      // A refusal from the room says itself what is wrong; a locked meeting in one sentence of the page's language.
      const refused = refusal(err);
      return refused.reason === 'meeting_locked' ? t('prejoin.locked') : t('prejoin.joinFailed', { error: refused.message });
    }
  };

  const name = embed ? (embed.name ?? '') : (params.get('name') ?? '');
  const prejoin = prejoinScreen({
    info,
    name,
    withMedia,
    nameFixed: Boolean(invite) || Boolean(embed?.nameFixed),
    notice: info.open || host ? null : startsAtNotice(info),
    onJoin: join,
  });
  show(prejoin);
  document.getElementById('display-name')?.focus();
  bridge?.post('ready', {});
  if (joinAsked) prejoinForm()?.requestSubmit();
}

/** The preview track, unless the embedding page muted that kind before the Join click. */
function withoutMuted(track: MediaStreamTrack | null, muted: boolean | undefined): MediaStreamTrack | null {
  if (!muted || !track) return track;
  track.stop();
  return null;
}

/** Turns on what the embedding page unmuted before the Join click but the guest had left off. */
function unmuteAsAskedBeforeJoin(session: RoomSession, mutedBeforeJoin: Partial<Record<'audio' | 'video', boolean>>): void {
  if (mutedBeforeJoin.audio === false && !session.isOn('microphone')) void session.setMicrophone(true).catch(() => undefined);
  if (mutedBeforeJoin.video === false && !session.isOn('camera')) void session.setCamera(true).catch(() => undefined);
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
