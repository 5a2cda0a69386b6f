import { h } from '../../dom';
import { t } from '../../i18n';
import type { WaitingPeer } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';

/** Hosts: the people in the waiting room, each with Admit and Deny. */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const list = h('aside', {
    class: 'waiting-list',
    'data-testid': 'waiting-list',
    hidden: true,
    'aria-label': t('people.waitingToJoin'),
    'aria-live': 'polite',
  });
  slot.aside.add(list);
  cleanup.remove(list);

  const action = (kind: 'admit' | 'deny', p: WaitingPeer, className: string) =>
    h(
      'button',
      {
        type: 'button',
        class: `btn small ${className}`,
        'data-testid': kind,
        'aria-label': t(kind === 'admit' ? 'people.admitName' : 'people.denyName', { name: p.name }),
        onclick: () =>
          void session
            .hostAction(kind, p.id)
            .catch((err) => slot.toast(t(kind === 'admit' ? 'error.admit' : 'error.deny', { name: p.name, error: String(err) }))),
      },
      t(kind === 'admit' ? 'people.admit' : 'people.deny'),
    );

  function render(peers: WaitingPeer[]): void {
    list.hidden = session.state?.self.role !== 'host' || peers.length === 0;
    list.replaceChildren(
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
            action('admit', p, 'primary'),
            action('deny', p, 'secondary'),
          ),
        ),
      ),
    );
  }

  on('joined', ({ state }) => render(state.waiting));
  on('waiting', ({ peers }) => render(peers));
  if (session.state) render(session.state.waiting);
  return cleanup.dispose;
}
