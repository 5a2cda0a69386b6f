import { h } from '../../dom';
import { t } from '../../i18n';
import type { PeerInfo } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { menuFor, type MenuItem } from '../toolbar/menu';

/** A host's menu for one person: the actions that apply to them now (mute or ask to unmute, stop video or share, lower hand, make co-host). */
export function personMenu(
  session: RoomSession,
  p: PeerInfo,
  act: (run: () => Promise<unknown>) => void,
  onClose: () => void,
): HTMLElement {
  const button = h(
    'button',
    {
      type: 'button',
      class: 'icon-btn person-menu-button',
      'data-testid': 'person-menu',
      'aria-label': t('people.actionsFor', { name: p.name }),
    },
    icon('more'),
  );
  const items = (): MenuItem[] => {
    const mic = p.media.microphone;
    const raised = session.state?.hands.some((hand) => hand.peerId === p.id) ?? false;
    const all: (MenuItem | null)[] = [
      mic && !mic.paused
        ? { label: t('people.mute'), testId: 'mute-peer', run: () => act(() => session.call('mutePeer', { peerId: p.id })) }
        : null,
      !mic || mic.paused
        ? { label: t('people.askToUnmute'), testId: 'ask-unmute', run: () => act(() => session.call('askToUnmute', { peerId: p.id })) }
        : null,
      p.media.camera
        ? {
            label: t('people.stopVideo'),
            testId: 'stop-video',
            run: () => act(() => session.call('stopMedia', { peerId: p.id, source: 'camera' })),
          }
        : null,
      p.media.screen
        ? {
            label: t('people.stopScreen'),
            testId: 'stop-screen',
            run: () => act(() => session.call('stopMedia', { peerId: p.id, source: 'screen' })),
          }
        : null,
      raised
        ? { label: t('people.lowerHand'), testId: 'lower-hand', run: () => act(() => session.call('lowerHand', { peerId: p.id })) }
        : null,
      p.role !== 'host'
        ? { label: t('people.makeCoHost'), testId: 'make-co-host', run: () => act(() => session.call('makeCoHost', { peerId: p.id })) }
        : null,
    ];
    return all.filter((item): item is MenuItem => item !== null);
  };
  const menu = menuFor(button, items, {
    label: t('people.actionsFor', { name: p.name }),
    testId: 'person-actions',
    onClose,
    anchored: true,
  });
  return h('span', { class: 'menu-anchor' }, button, menu.el);
}
