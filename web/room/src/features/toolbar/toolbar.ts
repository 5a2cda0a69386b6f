import { h } from '../../dom';
import { t } from '../../i18n';
import { openScreen } from '../../local-media';
import type { MediaSource } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon, type IconName } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';
import { refusal } from '../moderation/refusal';
import { endMeetingDialog, inviteDialog } from './dialogs';
import { overflowMenu } from './overflow';

/**
 * The call's own controls: microphone, camera and screen (for those who send media; Ctrl+D and Ctrl+E), invite,
 * end meeting (hosts) and leave. The screen button is left out when the embedding page switched screen sharing off.
 * A guest's buttons for what hosts do not allow (unmute, video, screen) are disabled. At phone width the middle
 * group (every feature's button: people, chat, hands, reactions...) folds into a "More" menu.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const toolButton = (testId: string, iconName: IconName, label: string, onClick: () => void) =>
    h(
      'button',
      { type: 'button', class: 'tool', 'data-testid': testId, onclick: onClick },
      icon(iconName),
      h('span', { class: 'tool-label' }, label),
    );
  const micBtn = toolButton('toggle-microphone', 'mic', t('room.mute'), () => void toggle('microphone'));
  micBtn.setAttribute('aria-keyshortcuts', 'Control+D');
  const camBtn = toolButton('toggle-camera', 'cam', t('room.stopVideo'), () => void toggle('camera'));
  camBtn.setAttribute('aria-keyshortcuts', 'Control+E');
  const shareBtn =
    slot.features.screenshare === false ? null : toolButton('toggle-screen', 'screen', t('room.shareScreen'), () => void toggleScreen());
  const inviteBtn = toolButton('invite', 'invite', t('room.invite'), () => void invite.open());
  inviteBtn.setAttribute('aria-label', t('room.inviteLabel'));
  inviteBtn.title = t('room.inviteLabel');
  // Embedded, the embedding site decides who gets in: no link to hand out.
  inviteBtn.hidden = window.self !== window.top;
  const endDialog = endMeetingDialog(session, slot.toast);
  const invite = inviteDialog(session, slot.toast);
  const endBtn = h(
    'button',
    { type: 'button', class: 'btn danger-outline', 'data-testid': 'end-meeting', onclick: () => endDialog.showModal() },
    t('room.endMeeting'),
  );
  const leaveBtn = h(
    'button',
    { type: 'button', class: 'btn danger', 'data-testid': 'leave', onclick: () => void session.leave() },
    icon('leave'),
    h('span', {}, t('room.leave')),
  );
  const mediaTools = h('div', { class: 'tool-group' }, micBtn, camBtn, ...(shareBtn ? [shareBtn] : []));
  const endTools = h('div', { class: 'tool-group end' }, endBtn, leaveBtn);
  slot.toolsStart.add(mediaTools);
  slot.tools.add(inviteBtn);
  // Every feature's button lands in the middle group: the "More" menu lists whichever of them are shown.
  const more = overflowMenu(inviteBtn.parentElement!);
  endTools.prepend(more.button);
  slot.toolsEnd.add(endTools);
  slot.end.add(endDialog, invite.el, more.menu);
  cleanup.remove(mediaTools, inviteBtn, endTools, endDialog, invite.el, more.menu);
  cleanup.add(more.dispose);

  function renderLocal(source: MediaSource): void {
    const isOn = session.isOn(source);
    if (source === 'microphone') {
      micBtn.replaceChildren(icon(isOn ? 'mic' : 'micOff'), h('span', { class: 'tool-label' }, t(isOn ? 'room.mute' : 'room.unmute')));
      micBtn.setAttribute('aria-pressed', String(!isOn));
      micBtn.setAttribute('aria-label', t(isOn ? 'room.muteMicrophone' : 'room.unmuteMicrophone'));
      micBtn.classList.toggle('off', !isOn);
    } else if (source === 'camera') {
      camBtn.replaceChildren(
        icon(isOn ? 'cam' : 'camOff'),
        h('span', { class: 'tool-label' }, t(isOn ? 'room.stopVideo' : 'room.startVideo')),
      );
      camBtn.setAttribute('aria-pressed', String(!isOn));
      camBtn.setAttribute('aria-label', t(isOn ? 'device.turnCameraOff' : 'device.turnCameraOn'));
      camBtn.classList.toggle('off', !isOn);
    } else if (shareBtn) {
      shareBtn.replaceChildren(icon('screen'), h('span', { class: 'tool-label' }, t(isOn ? 'room.stopSharing' : 'room.shareScreen')));
      shareBtn.setAttribute('aria-pressed', String(isOn));
      shareBtn.classList.toggle('active', isOn);
    }
  }

  async function toggle(source: 'microphone' | 'camera'): Promise<void> {
    const turnOn = !session.isOn(source);
    try {
      if (source === 'microphone') await session.setMicrophone(turnOn);
      else await session.setCamera(turnOn);
    } catch (err) {
      slot.toast(t(`error.${source}${turnOn ? 'On' : 'Off'}`, { error: refusal(err).message }));
      renderLocal(source);
    }
  }

  async function toggleScreen(): Promise<void> {
    if (session.isOn('screen')) return session.stopScreen();
    const track = await openScreen().catch((err) => {
      slot.toast(t('error.shareScreen', { error: String(err) }));
      return null;
    });
    if (track) await session.startScreen(track).catch((err) => slot.toast(t('error.shareScreen', { error: refusal(err).message })));
  }

  function render(): void {
    const state = session.state;
    if (!state) return;
    mediaTools.hidden = !state.canSendMedia;
    // Phones' browsers cannot capture the screen.
    if (shareBtn) shareBtn.hidden = typeof navigator.mediaDevices?.getDisplayMedia !== 'function';
    endBtn.hidden = state.self.role !== 'host';
    for (const source of ['microphone', 'camera', 'screen'] as const) renderLocal(source);
    renderPermissions();
  }

  /** A guest cannot turn on what hosts do not allow (the service refuses it anyway); what is already on can be turned off. */
  function renderPermissions(): void {
    const state = session.state;
    if (!state) return;
    const guest = state.self.role !== 'host';
    const buttons: [HTMLButtonElement | null, MediaSource, 'unmute' | 'video' | 'screen'][] = [
      [micBtn, 'microphone', 'unmute'],
      [camBtn, 'camera', 'video'],
      [shareBtn, 'screen', 'screen'],
    ];
    for (const [button, source, permission] of buttons) {
      if (!button) continue;
      const blocked = guest && !state.permissions[permission] && !session.isOn(source);
      button.disabled = blocked;
      button.title = blocked ? t('moderation.notAllowed') : '';
    }
  }

  const onKey = (ev: KeyboardEvent) => {
    if (!(ev.ctrlKey || ev.metaKey) || !session.state?.canSendMedia) return;
    if (ev.key === 'd') void toggle('microphone');
    else if (ev.key === 'e') void toggle('camera');
    else return;
    ev.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  cleanup.add(() => document.removeEventListener('keydown', onKey));
  on('joined', render);
  on('local', ({ source }) => {
    renderLocal(source);
    renderPermissions();
  });
  on('permissions', renderPermissions);
  on('peerUpdated', ({ peer }) => peer.id === session.selfId && render());
  render();
  return cleanup.dispose;
}
