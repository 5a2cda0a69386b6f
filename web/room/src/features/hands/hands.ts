import { h } from '../../dom';
import { t } from '../../i18n';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { refusal } from '../moderation/refusal';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';

/** True when the local peer's hand is up. */
export function handIsRaised(session: RoomSession): boolean {
  return session.state?.hands.some((hand) => hand.peerId === session.selfId) ?? false;
}

/** Raises or lowers the local peer's hand (the embed's raiseHand/lowerHand commands use it too). */
export async function setHand(session: RoomSession, raised: boolean): Promise<void> {
  await (raised ? session.call('raiseHand', {}) : session.call('lowerHand', {}));
}

/**
 * Raise hand: a toolbar toggle (in the overflow menu on phones); hosts hear of each raised hand, a guest whose
 * hand a host lowered is told. The order of the hands is shown in People.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const button = h('button', { type: 'button', class: 'tool', 'data-testid': 'raise-hand', onclick: () => void toggle() });
  slot.tools.add(button);
  cleanup.remove(button);

  function render(): void {
    const raised = handIsRaised(session);
    const order = session.state?.hands.find((hand) => hand.peerId === session.selfId)?.order;
    button.replaceChildren(icon('hand'), h('span', { class: 'tool-label' }, t(raised ? 'hands.lower' : 'hands.raise')));
    button.setAttribute('aria-pressed', String(raised));
    button.classList.toggle('active', raised);
    button.title = raised && order ? t('hands.order', { order }) : t('hands.raise');
  }

  async function toggle(): Promise<void> {
    try {
      await setHand(session, !handIsRaised(session));
    } catch (err) {
      slot.toast(t('hands.failed', { error: refusal(err).message }));
    }
  }

  on('joined', render);
  on('hands', ({ hands, raised, lowered, by }) => {
    render();
    const self = session.state?.self;
    if (raised && raised !== session.selfId && self?.role === 'host') {
      const hand = hands.find((x) => x.peerId === raised);
      if (hand) slot.toast(t('hands.raised', { name: hand.name }), 'hand-toast');
    }
    if (by && session.selfId && lowered?.includes(session.selfId)) slot.toast(t('hands.loweredByHost', { name: by }));
  });
  render();
  return cleanup.dispose;
}
