import { clockTime, h, hueOf, initials } from '../dom';
import { t } from '../i18n';
import { listDevices, openScreen } from '../local-media';
import type { EmbedFeatures } from '../embed-protocol';
import { ROOM_LIMITS, type ChatMessage, type MediaSource, type PeerInfo, type RoomState, type WaitingPeer } from '../protocol';
import type { RemoteTrack, RoomSession } from '../room-session';
import { chatNodes } from './chat-links';
import { icon, type IconName } from './icons';
import { copyToClipboard, guestLink } from './invite';
import { featuredPeer, saveLayout, savedLayout, type StageLayout } from './stage-layout';
import { Tile } from './tile';

type PanelName = 'people' | 'chat' | 'settings';

interface ConsumerEntry {
  track: RemoteTrack;
  audio: HTMLAudioElement | null;
  resize: ResizeObserver | null;
}

/** The spatial layer a tile this wide (in device pixels) needs: 0 up to 400 px, 1 up to 800 px, 2 beyond. */
export function layerForWidth(pixels: number): number {
  return pixels <= 400 ? 0 : pixels <= 800 ? 1 : 2;
}

/** Column count that makes `count` 16:9 tiles largest in a `width` x `height` area, and the tile width. */
export function gridFor(count: number, width: number, height: number, gap = 8): { cols: number; tileWidth: number } {
  let best = { cols: 1, tileWidth: 0 };
  for (let cols = 1; cols <= Math.max(1, count); cols++) {
    const rows = Math.ceil(count / cols);
    const w = Math.min((width - gap * (cols - 1)) / cols, ((height - gap * (rows - 1)) / rows) * (16 / 9));
    if (w > best.tileWidth) best = { cols, tileWidth: Math.floor(w) };
  }
  return best;
}

/** Notes for the page's own first-frame timing (the tests' join-to-first-frame measure), and the parts an embedder switched off. */
export interface RoomViewHooks {
  onRemoteFrame(): void;
  features?: EmbedFeatures;
}

/** The in-call view and what an embedding page may do to it. */
export interface RoomView {
  el: HTMLElement;
  /** Opens or closes the chat panel (nothing when chat is switched off). */
  toggleChat(): void;
}

/**
 * The in-call view: video tiles (a tile per peer, screen shares apart), the toolbar (microphone, camera,
 * screen, people, chat, settings, leave; hosts: end meeting), the people and chat panels and, for hosts,
 * the waiting list. It renders what the session reports and sends what the user does.
 */
export function roomView(session: RoomSession, hooks: RoomViewHooks): RoomView {
  const state = (): RoomState => session.state!;
  const tiles = new Map<string, Tile>();
  const screenTiles = new Map<string, Tile>();
  const consumers = new Map<string, ConsumerEntry>();
  const chatMessages = new Set<string>();
  let panel: PanelName | null = null;
  let unread = 0;
  let speaker: string | null = null;
  let stageLayout: StageLayout = savedLayout();
  let featured: string | null = null;

  const isHost = () => state().self.role === 'host';
  const canSend = () => state().canSendMedia;

  // Header
  const countEl = h('span', { 'data-testid': 'participant-count', class: 'count' });
  const recBadge = h('span', { class: 'rec-badge', hidden: true, role: 'status' }, icon('rec'), t('room.recording'));
  const banner = h('div', { class: 'banner', role: 'status', hidden: true, 'data-testid': 'reconnecting' });
  const titleEl = h('h1', { class: 'room-title' });
  const countSr = h('span', { class: 'sr-only' });
  const countPill = h('span', { class: 'count-pill', title: t('room.participants') }, icon('people'), countEl, countSr);
  const layoutButton = (value: StageLayout, iconName: IconName, label: string) =>
    h(
      'button',
      { type: 'button', class: 'layout-option', 'data-testid': `layout-${value}`, title: label, onclick: () => chooseLayout(value) },
      icon(iconName),
      h('span', { class: 'layout-label' }, label),
    );
  const gridLayoutBtn = layoutButton('grid', 'grid', t('room.layoutGrid'));
  const speakerLayoutBtn = layoutButton('speaker', 'speaker', t('room.layoutSpeaker'));
  const layoutSwitch = h('div', { class: 'layout-switch', role: 'group', 'aria-label': t('room.layout') }, gridLayoutBtn, speakerLayoutBtn);
  const header = h('header', { class: 'topbar' }, titleEl, recBadge, h('span', { class: 'spacer' }), layoutSwitch, countPill);

  // Stage
  const screenArea = h('div', { class: 'screen-area' });
  const speakerArea = h('div', { class: 'speaker-area', 'data-testid': 'speaker-area' });
  const grid = h('div', { class: 'grid-area' });
  const emptyStage = h('p', { class: 'empty-stage', hidden: true }, t('room.presentersVideo'));
  grid.append(emptyStage);
  const stage = h('section', { class: 'stage', 'aria-label': t('room.participants') }, screenArea, speakerArea, grid);
  const audioBox = h('div', { class: 'audio-sinks', hidden: true });

  // Waiting list (hosts)
  const waitingList = h('aside', {
    class: 'waiting-list',
    'data-testid': 'waiting-list',
    hidden: true,
    'aria-label': t('people.waitingToJoin'),
    'aria-live': 'polite',
  });

  // Panels
  const peopleList = h('ul', { class: 'people-list', 'data-testid': 'participant-list' });
  const peopleHeading = h('h2', {}, t('people.title'));
  const peoplePanel = h('section', { class: 'panel-body', 'aria-labelledby': 'people-heading' }, peopleHeading, peopleList);
  peopleHeading.id = 'people-heading';

  const chatList = h('ol', { class: 'chat-list', 'data-testid': 'chat-list', 'aria-live': 'polite' });
  const chatEmpty = h('p', { class: 'muted chat-empty' }, t('chat.empty'));
  const chatInput = h('textarea', {
    id: 'chat-input',
    'data-testid': 'chat-input',
    rows: 1,
    maxlength: ROOM_LIMITS.maxChatLength,
    placeholder: t('chat.placeholder'),
    'aria-describedby': 'chat-hint',
  });
  const chatSend = h(
    'button',
    { type: 'submit', class: 'icon-btn', 'aria-label': t('chat.send'), 'data-testid': 'chat-send' },
    icon('send'),
  );
  const chatForm = h(
    'form',
    { class: 'chat-form' },
    h('label', { for: 'chat-input', class: 'sr-only' }, t('chat.message')),
    chatInput,
    chatSend,
    h('span', { id: 'chat-hint', class: 'sr-only' }, t('chat.hint')),
  );
  const chatPanel = h(
    'section',
    { class: 'panel-body chat', 'aria-labelledby': 'chat-heading' },
    h('h2', { id: 'chat-heading' }, t('chat.title')),
    chatEmpty,
    chatList,
    chatForm,
  );

  const cameraSelect = h('select', { id: 'room-camera-select' });
  const micSelect = h('select', { id: 'room-microphone-select' });
  const settingsPanel = h(
    'section',
    { class: 'panel-body', 'aria-labelledby': 'settings-heading' },
    h('h2', { id: 'settings-heading' }, t('room.settings')),
    h('label', { for: 'room-camera-select' }, t('device.camera')),
    cameraSelect,
    h('label', { for: 'room-microphone-select' }, t('device.microphone')),
    micSelect,
  );

  const panelClose = h('button', { type: 'button', class: 'icon-btn panel-close', 'aria-label': t('room.closePanel') }, icon('close'));
  const panelEl = h('aside', { class: 'panel', hidden: true, 'data-testid': 'panel' }, panelClose);

  // Toolbar
  const toolButton = (testId: string, iconName: IconName, label: string, onClick: () => void, extra = '') =>
    h(
      'button',
      { type: 'button', class: `tool ${extra}`.trim(), 'data-testid': testId, onclick: onClick },
      icon(iconName),
      h('span', { class: 'tool-label' }, label),
    );
  const micBtn = toolButton('toggle-microphone', 'mic', t('room.mute'), () => void toggle('microphone'));
  micBtn.setAttribute('aria-keyshortcuts', 'Control+D');
  const camBtn = toolButton('toggle-camera', 'cam', t('room.stopVideo'), () => void toggle('camera'));
  camBtn.setAttribute('aria-keyshortcuts', 'Control+E');
  const shareBtn = toolButton('toggle-screen', 'screen', t('room.shareScreen'), () => void toggleScreen());
  const peopleBtn = toolButton('open-people', 'people', t('people.title'), () => togglePanel('people'));
  const peopleBadge = h('span', { class: 'badge' });
  peopleBtn.append(peopleBadge);
  const chatBtn = toolButton('open-chat', 'chat', t('chat.title'), () => togglePanel('chat'));
  const chatBadge = h('span', { class: 'badge unread', hidden: true });
  chatBtn.append(chatBadge);
  const settingsBtn = toolButton('open-settings', 'settings', t('room.settings'), () => togglePanel('settings'));
  let recording = false;
  let recordingBusy = false;
  // Labelled on phones too: a bare red dot does not say what it does.
  const recordBtn = toolButton('toggle-recording', 'rec', t('room.record'), () => void toggleRecording(), 'labelled');
  const inviteBtn = toolButton('invite', 'invite', t('room.invite'), () => void invite());
  inviteBtn.setAttribute('aria-label', t('room.inviteLabel'));
  inviteBtn.title = t('room.inviteLabel');
  // Embedded, the embedding site decides who gets in: no link to hand out.
  inviteBtn.hidden = window.self !== window.top;
  const renderRecording = () => {
    recBadge.hidden = !recording;
    recordBtn.hidden = !isHost();
    recordBtn.classList.toggle('active', recording);
    (recordBtn as HTMLButtonElement).disabled = recordingBusy;
    recordBtn.querySelector('.tool-label')!.textContent = t(recording ? 'room.stopRecording' : 'room.record');
  };
  const toggleRecording = async () => {
    if (recordingBusy) return;
    recordingBusy = true;
    renderRecording();
    try {
      await (recording ? session.stopRecording() : session.startRecording());
    } catch (err) {
      toast(t('error.recording', { error: String(err) }));
    } finally {
      recordingBusy = false;
      renderRecording();
    }
  };
  const endBtn = h(
    'button',
    { type: 'button', class: 'btn danger-outline', 'data-testid': 'end-meeting', onclick: () => confirmEnd() },
    t('room.endMeeting'),
  );
  const leaveBtn = h(
    'button',
    { type: 'button', class: 'btn danger', 'data-testid': 'leave', onclick: () => void session.leave() },
    icon('leave'),
    h('span', {}, t('room.leave')),
  );
  const mediaTools = h('div', { class: 'tool-group' }, micBtn, camBtn, shareBtn);
  const toolbar = h(
    'footer',
    { class: 'toolbar', role: 'toolbar', 'aria-label': t('room.controls') },
    mediaTools,
    h('div', { class: 'tool-group' }, inviteBtn, peopleBtn, chatBtn, settingsBtn, recordBtn),
    h('div', { class: 'tool-group end' }, endBtn, leaveBtn),
  );

  // End-meeting confirmation
  const confirmDialog = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': 'end-title', 'data-testid': 'end-dialog' },
    h('h2', { id: 'end-title' }, t('room.endTitle')),
    h('p', { class: 'muted' }, t('room.endText')),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'btn secondary', onclick: () => confirmDialog.close() }, t('room.cancel')),
      h(
        'button',
        {
          type: 'button',
          class: 'btn danger',
          'data-testid': 'confirm-end-meeting',
          onclick: () => {
            confirmDialog.close();
            session.endMeeting().catch((err) => toast(t('error.endMeeting', { error: String(err) })));
          },
        },
        t('room.endMeeting'),
      ),
    ),
  );

  // When the clipboard is refused: the link to copy by hand.
  const inviteField = h('input', {
    type: 'text',
    readonly: true,
    class: 'invite-field',
    'data-testid': 'invite-link',
    'aria-labelledby': 'invite-title',
  });
  const inviteDialog = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': 'invite-title', 'data-testid': 'invite-dialog' },
    h('h2', { id: 'invite-title' }, t('room.inviteTitle')),
    h('p', { class: 'muted' }, t('room.inviteText')),
    inviteField,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'btn primary', onclick: () => inviteDialog.close() }, t('room.done')),
    ),
  );

  const toasts = h('div', { class: 'toasts', 'aria-live': 'polite' });
  const body = h('div', { class: 'room-body' }, stage, panelEl);
  const root = h(
    'div',
    { class: 'room', 'data-testid': 'room' },
    header,
    banner,
    body,
    waitingList,
    toolbar,
    toasts,
    audioBox,
    confirmDialog,
    inviteDialog,
  );

  function toast(text: string, testId?: string): void {
    const el = h('div', { class: 'toast', 'data-testid': testId ?? null }, text);
    toasts.append(el);
    window.setTimeout(() => el.remove(), 4000);
  }

  function confirmEnd(): void {
    confirmDialog.showModal();
  }

  async function invite(): Promise<void> {
    const link = guestLink(location, state().meeting.code);
    if (await copyToClipboard(link)) return toast(t('room.linkCopied'), 'link-copied');
    inviteField.value = link;
    inviteDialog.showModal();
    inviteField.select();
  }

  function chooseLayout(value: StageLayout): void {
    stageLayout = value;
    saveLayout(value);
    layout();
  }

  function nameOf(peerId: string): string {
    if (peerId === session.selfId) return state().self.name;
    return session.peers.get(peerId)?.name ?? t('room.someone');
  }

  /** Webinars show only the hosts (the presenters); attendees are in the people list. */
  function hasTile(peer: PeerInfo): boolean {
    return state().meeting.kind !== 'webinar' || peer.role === 'host';
  }

  function peerTile(peer: PeerInfo, isSelf: boolean): Tile | null {
    if (!hasTile(peer)) return null;
    let tile = tiles.get(peer.id);
    if (!tile) {
      tile = new Tile(peer.id, 'camera', peer.name, isSelf);
      tiles.set(peer.id, tile);
      grid.append(tile.el);
    }
    tile.setName(peer.name);
    if (!isSelf) {
      tile.setMicMuted(!peer.media.microphone || peer.media.microphone.paused);
      tile.setVideoPaused(!peer.media.camera || peer.media.camera.paused);
    }
    tile.setSpeaking(speaker === peer.id);
    return tile;
  }

  function screenTile(peerId: string, isSelf: boolean): Tile {
    let tile = screenTiles.get(peerId);
    if (!tile) {
      tile = new Tile(peerId, 'screen', nameOf(peerId), isSelf);
      screenTiles.set(peerId, tile);
      screenArea.append(tile.el);
    }
    return tile;
  }

  function removeScreenTile(peerId: string): void {
    screenTiles.get(peerId)?.el.remove();
    screenTiles.delete(peerId);
  }

  /** Shows `peerId`'s tile in the speaker area (null: none), and every other tile in the grid or strip. */
  function feature(peerId: string | null): void {
    const current = featured ? tiles.get(featured) : undefined;
    if (featured !== peerId && current?.el.parentElement === speakerArea) grid.append(current.el);
    featured = peerId;
    const tile = peerId ? tiles.get(peerId) : undefined;
    if (tile && tile.el.parentElement !== speakerArea) speakerArea.replaceChildren(tile.el);
    if (!tile) speakerArea.replaceChildren();
  }

  function layout(): void {
    emptyStage.hidden = tiles.size > 0 || screenTiles.size > 0;
    const presenting = screenTiles.size > 0;
    const speakerView = stageLayout === 'speaker' && !presenting && tiles.size > 0;
    feature(speakerView ? featuredPeer([...tiles.keys()], session.selfId, speaker, featured) : null);
    const phone = window.matchMedia('(max-width: 700px)').matches;
    // On a phone your own camera floats small in a corner, as in the phone apps, instead of taking the first full-width tile.
    const selfPip = phone && !presenting && !speakerView && tiles.size > 1 && tiles.has(session.selfId ?? '');
    const inStrip = speakerView ? tiles.size - 1 : tiles.size;
    stage.classList.toggle('presenting', presenting);
    stage.classList.toggle('speaker', speakerView);
    stage.classList.toggle('strip-empty', speakerView && inStrip === 0);
    stage.classList.toggle('self-pip', selfPip);
    stage.classList.toggle('one-other', selfPip && tiles.size === 2);
    for (const [btn, value] of [
      [gridLayoutBtn, 'grid'],
      [speakerLayoutBtn, 'speaker'],
    ] as const)
      btn.setAttribute('aria-pressed', String(stageLayout === value));
    const w = grid.clientWidth || stage.clientWidth;
    const hgt = grid.clientHeight || stage.clientHeight;
    let tileWidth: number;
    if (presenting || speakerView) tileWidth = phone ? Math.min(160, (w - 8 * Math.max(0, inStrip - 1)) / Math.max(1, inStrip)) : w;
    else tileWidth = gridFor(selfPip ? tiles.size - 1 : tiles.size, w, hgt).tileWidth;
    grid.style.setProperty('--tile-w', `${Math.max(120, tileWidth)}px`);
  }

  function renderCount(): void {
    const count = state().participantCount;
    countEl.textContent = String(count);
    peopleBadge.textContent = String(count);
    countSr.textContent = t('room.participantCount', { count });
    peopleBtn.setAttribute('aria-label', t('people.titleCount', { count }));
    peopleHeading.textContent = t('people.titleCount', { count });
  }

  function renderPeople(): void {
    const all = [state().self, ...session.peers.values()];
    peopleList.replaceChildren(
      ...all.map((p) => {
        const self = p.id === session.selfId;
        const muted = self ? !session.isOn('microphone') : !p.media.microphone || p.media.microphone.paused;
        const avatar = h('span', { class: 'avatar small', 'aria-hidden': 'true' }, initials(p.name));
        avatar.style.setProperty('--hue', String(hueOf(p.name)));
        return h(
          'li',
          { 'data-peer-id': p.id, 'data-testid': 'participant' },
          avatar,
          h(
            'span',
            { class: 'person-name' },
            self ? t('room.nameYou', { name: p.name }) : p.name,
            p.role === 'host' ? h('span', { class: 'role' }, t('room.host')) : null,
          ),
          h(
            'span',
            { class: 'mic-state', title: t(muted ? 'device.microphoneOff' : 'device.microphoneOn') },
            icon(muted ? 'micOff' : 'mic'),
          ),
          isHost() && !self
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'btn small secondary',
                  'data-testid': 'remove',
                  'aria-label': t('people.removeName', { name: p.name }),
                  onclick: () =>
                    void session.hostAction('remove', p.id).catch((err) => toast(t('error.remove', { name: p.name, error: String(err) }))),
                },
                t('people.remove'),
              )
            : null,
        );
      }),
    );
  }

  function renderWaiting(peers: WaitingPeer[]): void {
    waitingList.hidden = !isHost() || peers.length === 0;
    waitingList.replaceChildren(
      h('h2', {}, t('people.wantToJoin', { count: peers.length })),
      h(
        'ul',
        {},
        ...peers.map((p) =>
          h(
            'li',
            { 'data-peer-id': p.id, 'data-testid': 'waiting-peer' },
            h(
              'span',
              { class: 'waiting-who' },
              h('span', { class: 'person-name' }, p.name),
              p.removedEarlier ? h('span', { class: 'waiting-note', 'data-testid': 'removed-earlier' }, t('people.removedEarlier')) : null,
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'btn small primary',
                'data-testid': 'admit',
                'aria-label': t('people.admitName', { name: p.name }),
                onclick: () =>
                  void session.hostAction('admit', p.id).catch((err) => toast(t('error.admit', { name: p.name, error: String(err) }))),
              },
              t('people.admit'),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'btn small secondary',
                'data-testid': 'deny',
                'aria-label': t('people.denyName', { name: p.name }),
                onclick: () =>
                  void session.hostAction('deny', p.id).catch((err) => toast(t('error.deny', { name: p.name, error: String(err) }))),
              },
              t('people.deny'),
            ),
          ),
        ),
      ),
    );
  }

  function addChat(message: ChatMessage): void {
    if (chatMessages.has(message.id)) return;
    chatMessages.add(message.id);
    chatEmpty.hidden = true;
    const mine = message.participant_id === session.selfId || message.sender_identity === state().self.identity;
    chatList.append(
      h(
        'li',
        { class: mine ? 'mine' : null, 'data-testid': 'chat-message', 'data-message-id': message.id },
        h(
          'div',
          { class: 'chat-meta' },
          h('span', { class: 'chat-sender' }, mine ? t('room.you') : message.sender_name),
          h('time', { datetime: message.sent_at }, clockTime(message.sent_at)),
        ),
        h('p', { class: 'chat-text' }, ...chatNodes(message.text)),
      ),
    );
    chatList.scrollTop = chatList.scrollHeight;
    if (panel !== 'chat' && !mine) {
      unread++;
      chatBadge.hidden = false;
      chatBadge.textContent = String(unread);
      chatBtn.setAttribute('aria-label', t('chat.unread', { count: unread }));
    }
  }

  function togglePanel(name: PanelName): void {
    panel = panel === name ? null : name;
    panelEl.hidden = panel === null;
    panelEl.replaceChildren(panelClose);
    for (const [n, btn] of [
      ['people', peopleBtn],
      ['chat', chatBtn],
      ['settings', settingsBtn],
    ] as const) {
      btn.setAttribute('aria-expanded', String(panel === n));
      btn.classList.toggle('active', panel === n);
    }
    if (panel === 'people') {
      renderPeople();
      panelEl.append(peoplePanel);
    } else if (panel === 'chat') {
      unread = 0;
      chatBadge.hidden = true;
      chatBtn.setAttribute('aria-label', t('chat.title'));
      panelEl.append(chatPanel);
      chatList.scrollTop = chatList.scrollHeight;
      chatInput.focus();
    } else if (panel === 'settings') {
      panelEl.append(settingsPanel);
      void fillDevices();
    }
    requestAnimationFrame(layout);
  }

  async function fillDevices(): Promise<void> {
    const { cameras, microphones } = await listDevices();
    const fill = (select: HTMLSelectElement, list: MediaDeviceInfo[], kind: 'camera' | 'microphone') => {
      const current = select.value;
      select.replaceChildren(
        ...list.map((d, i) =>
          h('option', { value: d.deviceId, selected: d.deviceId === current }, d.label || t(`device.${kind}Number`, { number: i + 1 })),
        ),
      );
      select.disabled = !canSend() || list.length === 0;
    };
    fill(cameraSelect, cameras, 'camera');
    fill(micSelect, microphones, 'microphone');
  }

  function renderLocal(source: MediaSource): void {
    const on = session.isOn(source);
    if (source === 'microphone') {
      micBtn.replaceChildren(icon(on ? 'mic' : 'micOff'), h('span', { class: 'tool-label' }, t(on ? 'room.mute' : 'room.unmute')));
      micBtn.setAttribute('aria-pressed', String(!on));
      micBtn.setAttribute('aria-label', t(on ? 'room.muteMicrophone' : 'room.unmuteMicrophone'));
      micBtn.classList.toggle('off', !on);
      tiles.get(session.selfId!)?.setMicMuted(!on);
    } else if (source === 'camera') {
      camBtn.replaceChildren(icon(on ? 'cam' : 'camOff'), h('span', { class: 'tool-label' }, t(on ? 'room.stopVideo' : 'room.startVideo')));
      camBtn.setAttribute('aria-pressed', String(!on));
      camBtn.setAttribute('aria-label', t(on ? 'device.turnCameraOff' : 'device.turnCameraOn'));
      camBtn.classList.toggle('off', !on);
    } else {
      shareBtn.replaceChildren(icon('screen'), h('span', { class: 'tool-label' }, t(on ? 'room.stopSharing' : 'room.shareScreen')));
      shareBtn.setAttribute('aria-pressed', String(on));
      shareBtn.classList.toggle('active', on);
    }
  }

  async function toggle(source: 'microphone' | 'camera'): Promise<void> {
    const on = !session.isOn(source);
    try {
      if (source === 'microphone') await session.setMicrophone(on);
      else await session.setCamera(on);
    } catch (err) {
      toast(t(`error.${source}${on ? 'On' : 'Off'}`, { error: err instanceof Error ? err.message : String(err) }));
      renderLocal(source);
    }
  }

  async function toggleScreen(): Promise<void> {
    if (session.isOn('screen')) return session.stopScreen();
    const track = await openScreen().catch((err) => {
      toast(t('error.shareScreen', { error: String(err) }));
      return null;
    });
    if (track) await session.startScreen(track);
  }

  function renderAll(s: RoomState): void {
    titleEl.textContent = s.meeting.title;
    document.title = t('page.meetingTitle', { title: s.meeting.title });
    for (const t of tiles.values()) t.el.remove();
    tiles.clear();
    featured = null;
    for (const t of screenTiles.values()) t.el.remove();
    screenTiles.clear();
    peerTile(s.self, true);
    for (const peer of s.peers) peerTile(peer, false);
    mediaTools.hidden = !s.canSendMedia;
    // Phones' browsers cannot capture the screen.
    shareBtn.hidden = typeof navigator.mediaDevices?.getDisplayMedia !== 'function' || hooks.features?.screenshare === false;
    chatBtn.hidden = hooks.features?.chat === false;
    peopleBtn.hidden = hooks.features?.participants === false;
    endBtn.hidden = s.self.role !== 'host';
    settingsBtn.hidden = !s.canSendMedia;
    for (const m of s.chat) addChat(m);
    renderCount();
    renderWaiting(s.waiting);
    recording = s.recording;
    renderRecording();
    renderLocal('microphone');
    renderLocal('camera');
    renderLocal('screen');
    if (panel === 'people') renderPeople();
    layout();
  }

  chatInput.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      chatForm.requestSubmit();
    }
  });
  chatForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = chatInput.value.trim();
    if (!text) return;
    chatInput.value = '';
    session.sendChat(text).then(addChat, (err) => {
      chatInput.value = text;
      toast(t('error.chatNotSent', { error: err instanceof Error ? err.message : String(err) }));
    });
  });
  panelClose.addEventListener('click', () => panel && togglePanel(panel));
  cameraSelect.addEventListener('change', () => void session.switchDevice('camera', cameraSelect.value).catch((err) => toast(String(err))));
  micSelect.addEventListener('change', () => void session.switchDevice('microphone', micSelect.value).catch((err) => toast(String(err))));
  const onKey = (ev: KeyboardEvent) => {
    if (!(ev.ctrlKey || ev.metaKey) || !session.state?.canSendMedia) return;
    if (ev.key === 'd') void toggle('microphone');
    else if (ev.key === 'e') void toggle('camera');
    else return;
    ev.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  new ResizeObserver(() => layout()).observe(stage);

  session.events.on('joined', ({ state: s }) => renderAll(s));
  session.events.on('phase', ({ phase }) => {
    banner.hidden = phase !== 'reconnecting';
    banner.textContent = phase === 'reconnecting' ? t('room.reconnecting') : '';
    root.classList.toggle('reconnecting', phase === 'reconnecting');
    if (phase === 'ended') document.removeEventListener('keydown', onKey);
  });
  session.events.on('peerJoined', ({ peer }) => {
    peerTile(peer, false);
    toast(t('room.peerJoined', { name: peer.name }));
    if (panel === 'people') renderPeople();
    layout();
  });
  session.events.on('peerUpdated', ({ peer }) => {
    if (peer.id !== session.selfId) peerTile(peer, false);
    if (panel === 'people') renderPeople();
  });
  session.events.on('peerLeft', ({ peerId }) => {
    const tile = tiles.get(peerId);
    if (tile) {
      const someone = t('room.someone');
      toast(t('room.peerLeft', { name: nameOf(peerId) === someone ? (tile.el.getAttribute('aria-label') ?? someone) : nameOf(peerId) }));
      tile.el.remove();
      tiles.delete(peerId);
    }
    removeScreenTile(peerId);
    if (panel === 'people') renderPeople();
    layout();
  });
  session.events.on('participantCount', () => renderCount());
  session.events.on('waiting', ({ peers }) => renderWaiting(peers));
  session.events.on('recording', ({ active }) => {
    recording = active;
    renderRecording();
    toast(t(active ? 'room.recordingStarted' : 'room.recordingStopped'));
  });
  session.events.on('chat', ({ message }) => addChat(message));
  session.events.on('notice', ({ message }) => toast(message));
  session.events.on('activeSpeaker', ({ peerId }) => {
    speaker = peerId;
    for (const [id, t] of tiles) t.setSpeaking(id === peerId);
    if (stageLayout === 'speaker' && peerId !== featured) layout();
  });
  session.events.on('local', ({ source, track }) => {
    const selfId = session.selfId;
    if (!selfId) return;
    if (source === 'camera') tiles.get(selfId)?.setVideo(track && session.isOn('camera') ? track : null);
    else if (source === 'screen') {
      if (track) screenTile(selfId, true).setVideo(track);
      else removeScreenTile(selfId);
      layout();
    }
    renderLocal(source);
    if (panel === 'people') renderPeople();
  });
  session.events.on('remoteTrack', (t) => {
    const entry: ConsumerEntry = { track: t, audio: null, resize: null };
    consumers.set(t.consumerId, entry);
    if (t.kind === 'audio') {
      entry.audio = h('audio', { autoplay: true });
      entry.audio.srcObject = new MediaStream([t.track]);
      audioBox.append(entry.audio);
      void entry.audio.play().catch(() => undefined);
      return;
    }
    const tile = t.source === 'screen' ? screenTile(t.peerId, false) : tiles.get(t.peerId);
    if (!tile) return;
    tile.setVideo(t.track, hooks.onRemoteFrame);
    if (t.source === 'camera') tile.setVideoPaused(t.paused);
    if (t.simulcast) {
      entry.resize = new ResizeObserver(() => session.setLayer(t.consumerId, layerForWidth(tile.pixelWidth)));
      entry.resize.observe(tile.el);
    }
    layout();
  });
  session.events.on('remoteTrackPaused', ({ consumerId, paused }) => {
    const entry = consumers.get(consumerId);
    if (!entry || entry.track.kind !== 'video') return;
    const tile = entry.track.source === 'screen' ? screenTiles.get(entry.track.peerId) : tiles.get(entry.track.peerId);
    tile?.setVideoPaused(paused);
  });
  session.events.on('remoteTrackEnded', ({ consumerId }) => {
    const entry = consumers.get(consumerId);
    if (!entry) return;
    consumers.delete(consumerId);
    entry.resize?.disconnect();
    entry.audio?.remove();
    if (entry.track.kind === 'video') {
      if (entry.track.source === 'screen') removeScreenTile(entry.track.peerId);
      else tiles.get(entry.track.peerId)?.setVideo(null);
      layout();
    }
  });

  if (session.state) renderAll(session.state);
  return {
    el: root,
    toggleChat: () => {
      if (hooks.features?.chat !== false) togglePanel('chat');
    },
  };
}
