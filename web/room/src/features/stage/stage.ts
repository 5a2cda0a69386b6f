import { h } from '../../dom';
import { t } from '../../i18n';
import type { PeerInfo, RoomState } from '../../protocol';
import type { RoomSession } from '../../room-session';
import type { RemoteTrack } from '../../session-events';
import { icon, type IconName } from '../../ui/icons';
import { Tile } from '../../ui/tile';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';
import { arrange, featuredPeer, layerForWidth } from './arrangement';
import { saveLayout, savedLayout, type StageLayout } from './stage-layout';

interface ConsumerEntry {
  track: RemoteTrack;
  audio: HTMLAudioElement | null;
  resize: ResizeObserver | null;
}

/**
 * The stage: a video tile per person (webinars: the hosts only), screen shares apart, the grid or speaker
 * layout and its switch in the header, the remote audio, and the joined/left notes.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const state = (): RoomState => session.state!;
  const tiles = new Map<string, Tile>();
  const screenTiles = new Map<string, Tile>();
  const consumers = new Map<string, ConsumerEntry>();
  let speaker: string | null = null;
  let stageLayout: StageLayout = savedLayout();
  let featured: string | null = null;

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

  const screenArea = h('div', { class: 'screen-area' });
  const speakerArea = h('div', { class: 'speaker-area', 'data-testid': 'speaker-area' });
  const grid = h('div', { class: 'grid-area' });
  const emptyStage = h('p', { class: 'empty-stage', hidden: true }, t('room.presentersVideo'));
  grid.append(emptyStage);
  const stage = h('section', { class: 'stage', 'aria-label': t('room.participants') }, screenArea, speakerArea, grid);
  const audioBox = h('div', { class: 'audio-sinks', hidden: true });
  slot.headerTools.add(layoutSwitch);
  slot.stage.add(stage);
  slot.end.add(audioBox);
  cleanup.remove(layoutSwitch, stage, audioBox);

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
    const speakerView = stageLayout === 'speaker' && screenTiles.size === 0 && tiles.size > 0;
    feature(speakerView ? featuredPeer([...tiles.keys()], session.selfId, speaker, featured) : null);
    const arrangement = arrange({
      layout: stageLayout,
      tiles: tiles.size,
      screens: screenTiles.size,
      hasSelfTile: tiles.has(session.selfId ?? ''),
      phone: window.matchMedia('(max-width: 700px)').matches,
      width: grid.clientWidth || stage.clientWidth,
      height: grid.clientHeight || stage.clientHeight,
    });
    stage.classList.toggle('presenting', arrangement.presenting);
    stage.classList.toggle('speaker', arrangement.speakerView);
    stage.classList.toggle('strip-empty', arrangement.stripEmpty);
    stage.classList.toggle('self-pip', arrangement.selfPip);
    stage.classList.toggle('one-other', arrangement.oneOther);
    gridLayoutBtn.setAttribute('aria-pressed', String(stageLayout === 'grid'));
    speakerLayoutBtn.setAttribute('aria-pressed', String(stageLayout === 'speaker'));
    grid.style.setProperty('--tile-w', `${arrangement.tileWidth}px`);
  }

  function render(s: RoomState): void {
    for (const tile of tiles.values()) tile.el.remove();
    tiles.clear();
    featured = null;
    for (const tile of screenTiles.values()) tile.el.remove();
    screenTiles.clear();
    peerTile(s.self, true);
    for (const peer of s.peers) peerTile(peer, false);
    tiles.get(s.self.id)?.setMicMuted(!session.isOn('microphone'));
    layout();
  }

  on('joined', ({ state: s }) => render(s));
  on('peerJoined', ({ peer }) => {
    peerTile(peer, false);
    slot.toast(t('room.peerJoined', { name: peer.name }));
    layout();
  });
  on('peerUpdated', ({ peer }) => {
    if (peer.id !== session.selfId) peerTile(peer, false);
  });
  on('peerLeft', ({ peerId }) => {
    const tile = tiles.get(peerId);
    if (tile) {
      const someone = t('room.someone');
      slot.toast(
        t('room.peerLeft', { name: nameOf(peerId) === someone ? (tile.el.getAttribute('aria-label') ?? someone) : nameOf(peerId) }),
      );
      tile.el.remove();
      tiles.delete(peerId);
    }
    removeScreenTile(peerId);
    layout();
  });
  on('activeSpeaker', ({ peerId }) => {
    speaker = peerId;
    for (const [id, tile] of tiles) tile.setSpeaking(id === peerId);
    if (stageLayout === 'speaker' && peerId !== featured) layout();
  });
  on('local', ({ source, track }) => {
    const selfId = session.selfId;
    if (!selfId) return;
    if (source === 'camera') tiles.get(selfId)?.setVideo(track && session.isOn('camera') ? track : null);
    else if (source === 'microphone') tiles.get(selfId)?.setMicMuted(!session.isOn('microphone'));
    else {
      if (track) screenTile(selfId, true).setVideo(track);
      else removeScreenTile(selfId);
      layout();
    }
  });
  on('remoteTrack', (remote) => {
    const entry: ConsumerEntry = { track: remote, audio: null, resize: null };
    consumers.set(remote.consumerId, entry);
    if (remote.kind === 'audio') {
      entry.audio = h('audio', { autoplay: true });
      entry.audio.srcObject = new MediaStream([remote.track]);
      audioBox.append(entry.audio);
      void entry.audio.play().catch(() => undefined);
      return;
    }
    const tile = remote.source === 'screen' ? screenTile(remote.peerId, false) : tiles.get(remote.peerId);
    if (!tile) return;
    tile.setVideo(remote.track, slot.onRemoteFrame);
    if (remote.source === 'camera') tile.setVideoPaused(remote.paused);
    if (remote.simulcast) {
      entry.resize = new ResizeObserver(() => session.setLayer(remote.consumerId, layerForWidth(tile.pixelWidth)));
      entry.resize.observe(tile.el);
    }
    layout();
  });
  on('remoteTrackPaused', ({ consumerId, paused }) => {
    const entry = consumers.get(consumerId);
    if (!entry || entry.track.kind !== 'video') return;
    const tile = entry.track.source === 'screen' ? screenTiles.get(entry.track.peerId) : tiles.get(entry.track.peerId);
    tile?.setVideoPaused(paused);
  });
  on('remoteTrackEnded', ({ consumerId }) => {
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

  const resize = new ResizeObserver(() => layout());
  resize.observe(stage);
  cleanup.add(() => resize.disconnect());
  cleanup.add(() => consumers.forEach((entry) => entry.resize?.disconnect()));
  cleanup.add(slot.panels.onToggle(() => requestAnimationFrame(layout)));
  if (session.state) render(session.state);
  return cleanup.dispose;
}
