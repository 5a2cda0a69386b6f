import { h } from '../../dom';
import { t } from '../../i18n';
import { REACTIONS, type Reaction } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';
import { refusal } from '../moderation/refusal';
import { menuFor } from '../toolbar/menu';

/** How long a reaction stays on the sender's tile. */
const SHOWN_MS = 4000;

/** Sends a reaction (the embed's sendReaction command uses it too); rejects with the service's refusal. */
export async function sendReaction(session: RoomSession, emoji: Reaction): Promise<void> {
  await session.call('sendReaction', { emoji });
}

/**
 * Reactions: a toolbar button opening a menu of the fixed set; every reaction (yours too) floats on the
 * sender's tiles for a few seconds and is announced to screen readers. Too many too fast: the service refuses.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const button = h(
    'button',
    { type: 'button', class: 'tool', 'data-testid': 'reactions' },
    icon('react'),
    h('span', { class: 'tool-label' }, t('reactions.open')),
  );
  const picker = menuFor(
    button,
    () =>
      REACTIONS.map((emoji) => ({
        label: emoji,
        testId: `reaction-${emoji}`,
        run: () => void send(emoji),
      })),
    { label: t('reactions.menu'), testId: 'reaction-menu', className: 'floating reaction-menu' },
  );
  const announcer = h('div', { class: 'sr-only', 'aria-live': 'polite' });
  slot.tools.add(button);
  slot.end.add(picker.el, announcer);
  cleanup.remove(button, picker.el, announcer);

  async function send(emoji: Reaction): Promise<void> {
    try {
      await sendReaction(session, emoji);
    } catch (err) {
      const { code, message } = refusal(err);
      slot.toast(code === 'rate_limited' ? t('reactions.tooFast') : message, 'reaction-refused');
    }
  }

  on('reaction', ({ peerId, emoji }) => {
    for (const tile of document.querySelectorAll<HTMLElement>(`.tile[data-peer-id="${CSS.escape(peerId)}"]`)) {
      const burst = h('span', { class: 'reaction-burst', 'data-testid': 'tile-reaction', 'aria-hidden': 'true' }, emoji);
      tile.append(burst);
      window.setTimeout(() => burst.remove(), SHOWN_MS);
    }
    const name = peerId === session.selfId ? session.state?.self.name : session.peers.get(peerId)?.name;
    announcer.textContent = t('reactions.from', { name: name ?? '', emoji });
  });
  return cleanup.dispose;
}
