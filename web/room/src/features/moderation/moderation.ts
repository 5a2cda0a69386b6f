import { h } from '../../dom';
import { t } from '../../i18n';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';
import { refusal } from './refusal';

/**
 * What hosts do to this participant, as the participant sees it: being muted or having their camera or
 * screen share stopped (a toast: the session already followed the service), a request to unmute (a card
 * with Unmute and Stay muted: only the participant can unmute), becoming co-host, and the "Locked" badge.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const lockedBadge = h(
    'span',
    { class: 'locked-badge', 'data-testid': 'locked-badge', hidden: true },
    icon('lock'),
    t('moderation.lockedBadge'),
  );
  const requestText = h('p', { id: 'unmute-request-text' });
  const stayMuted = h(
    'button',
    { type: 'button', class: 'btn secondary', 'data-testid': 'stay-muted', onclick: () => hideRequest() },
    t('moderation.stayMuted'),
  );
  const accept = h(
    'button',
    { type: 'button', class: 'btn primary', 'data-testid': 'accept-unmute', onclick: () => void unmute() },
    icon('mic'),
    h('span', {}, t('moderation.unmute')),
  );
  const request = h(
    'div',
    {
      class: 'unmute-request',
      role: 'alertdialog',
      'aria-labelledby': 'unmute-request-text',
      'data-testid': 'unmute-request',
      hidden: true,
    },
    requestText,
    h('div', { class: 'actions' }, stayMuted, accept),
  );
  slot.headerBadges.add(lockedBadge);
  slot.aside.add(request);
  cleanup.remove(lockedBadge, request);

  function hideRequest(): void {
    request.hidden = true;
  }

  async function unmute(): Promise<void> {
    hideRequest();
    try {
      await session.setMicrophone(true);
    } catch (err) {
      slot.toast(t('error.microphoneOn', { error: refusal(err).message }));
    }
  }

  function renderLocked(): void {
    lockedBadge.hidden = !session.state?.locked;
  }

  let wasHost = false;
  on('joined', ({ state }) => {
    wasHost = state.self.role === 'host';
    renderLocked();
  });
  on('moderated', ({ action, source, by }) => {
    if (action === 'muted') slot.toast(t('moderation.mutedYou', { name: by }), 'muted-by-host');
    else slot.toast(t(source === 'screen' ? 'moderation.stoppedScreen' : 'moderation.stoppedCamera', { name: by }), 'stopped-by-host');
  });
  on('unmuteRequested', ({ by }) => {
    requestText.textContent = t('moderation.askedToUnmute', { name: by });
    request.hidden = false;
    accept.focus();
  });
  on('locked', ({ locked }) => {
    renderLocked();
    slot.toast(t(locked ? 'moderation.locked' : 'moderation.unlocked'));
  });
  on('local', ({ source, muted }) => {
    if (source === 'microphone' && !muted) hideRequest();
  });
  on('peerUpdated', ({ peer }) => {
    if (peer.id !== session.selfId || wasHost || peer.role !== 'host') return;
    wasHost = true;
    slot.toast(t('moderation.madeCoHost'), 'made-co-host');
  });
  renderLocked();
  return cleanup.dispose;
}
