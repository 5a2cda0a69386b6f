import { h, hueOf, initials } from '../../dom';
import { t } from '../../i18n';
import type { PeerInfo } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { refusal } from '../moderation/refusal';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';
import { hostControls } from './host-controls';
import { personMenu } from './person-menu';

/**
 * The people panel: everyone in the call, raised hands first in the order they went up, with their
 * microphone state; hosts (and co-hosts) get the room's controls (mute all, lower all hands, lock, what guests
 * may do) and a menu per person (mute, ask to unmute, stop video or screen share, lower hand, make co-host)
 * beside Remove. Its toolbar button shows the count.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const list = h('ul', { class: 'people-list', 'data-testid': 'participant-list' });
  const heading = h('h2', { id: 'people-heading' }, t('people.title'));
  const act = (run: () => Promise<unknown>) => void run().catch((err) => slot.toast(t('people.failed', { error: refusal(err).message })));
  const controls = hostControls(session, act);
  const body = h('section', { class: 'panel-body', 'aria-labelledby': 'people-heading' }, heading, controls.el, list);
  const button = h(
    'button',
    { type: 'button', class: 'tool', 'data-testid': 'open-people', onclick: () => slot.panels.toggle('people') },
    icon('people'),
    h('span', { class: 'tool-label' }, t('people.title')),
  );
  const badge = h('span', { class: 'badge' });
  const handBadge = h('span', { class: 'badge hand-count', 'data-testid': 'hand-count', hidden: true });
  button.append(badge, handBadge);
  slot.tools.add(button);
  cleanup.remove(button, body);
  cleanup.add(slot.panels.add({ name: 'people', button, body, opened: render }));

  const isHost = () => session.state?.self.role === 'host';

  function person(p: PeerInfo): HTMLElement {
    const self = p.id === session.selfId;
    const muted = self ? !session.isOn('microphone') : !p.media.microphone || p.media.microphone.paused;
    const hand = session.state?.hands.find((x) => x.peerId === p.id);
    const avatar = h('span', { class: 'avatar small', 'aria-hidden': 'true' }, initials(p.name));
    avatar.style.setProperty('--hue', String(hueOf(p.name)));
    return h(
      'li',
      { 'data-peer-id': p.id, 'data-testid': 'participant', class: hand ? 'hand-up' : null },
      avatar,
      h(
        'span',
        { class: 'person-name' },
        self ? t('room.nameYou', { name: p.name }) : p.name,
        p.role === 'host' ? h('span', { class: 'role' }, t(p.coHost ? 'people.coHost' : 'room.host')) : null,
      ),
      h(
        'span',
        { class: 'person-actions' },
        hand
          ? h(
              'span',
              { class: 'hand-order', 'data-testid': 'hand-order', title: t('hands.order', { order: hand.order }) },
              icon('hand'),
              h('span', { 'aria-hidden': 'true' }, String(hand.order)),
              h('span', { class: 'sr-only' }, t('hands.order', { order: hand.order })),
            )
          : null,
        h('span', { class: 'mic-state', title: t(muted ? 'device.microphoneOff' : 'device.microphoneOn') }, icon(muted ? 'micOff' : 'mic')),
        isHost() && !self ? personMenu(session, p, act, () => stale && renderIfOpen()) : null,
        isHost() && !self
          ? h(
              'button',
              {
                type: 'button',
                class: 'btn small secondary',
                'data-testid': 'remove',
                'aria-label': t('people.removeName', { name: p.name }),
                onclick: () =>
                  void session
                    .hostAction('remove', p.id)
                    .catch((err) => slot.toast(t('error.remove', { name: p.name, error: String(err) }))),
              },
              t('people.remove'),
            )
          : null,
      ),
    );
  }

  /** Raised hands first (in their order), then everyone else with yourself first. */
  function ordered(): PeerInfo[] {
    const state = session.state!;
    const everyone = [state.self, ...session.peers.values()];
    const order = new Map(state.hands.map((hand) => [hand.peerId, hand.order]));
    const rank = (p: PeerInfo) => order.get(p.id) ?? Number.MAX_SAFE_INTEGER;
    return everyone
      .map((p, index) => ({ p, index }))
      .sort((a, b) => rank(a.p) - rank(b.p) || a.index - b.index)
      .map(({ p }) => p);
  }

  /** A change arrived while a person's menu was open: rendered once it closes (a render would close it under the pointer). */
  let stale = false;

  function render(): void {
    if (!session.state) return;
    stale = list.querySelector('.menu:not([hidden])') !== null;
    if (stale) return;
    // Keep focus on a person's menu button across a re-render (a keyboard user working through the list).
    const focused = (document.activeElement as HTMLElement | null)?.closest('li')?.getAttribute('data-peer-id');
    controls.render();
    list.replaceChildren(...ordered().map(person));
    if (focused) list.querySelector<HTMLElement>(`li[data-peer-id="${CSS.escape(focused)}"] .person-menu-button`)?.focus();
  }

  function renderCount(): void {
    const count = session.state?.participantCount ?? 0;
    badge.textContent = String(count);
    const hands = session.state?.hands.length ?? 0;
    handBadge.hidden = hands === 0;
    handBadge.replaceChildren(icon('hand'), String(hands));
    button.setAttribute('aria-label', `${t('people.titleCount', { count })}${hands ? `, ${t('people.raisedHands')}: ${hands}` : ''}`);
    heading.textContent = t('people.titleCount', { count });
  }

  const renderIfOpen = () => slot.panels.isOpen('people') && render();
  on('joined', () => {
    renderCount();
    renderIfOpen();
  });
  on('participantCount', renderCount);
  on('hands', () => {
    renderCount();
    renderIfOpen();
  });
  for (const type of ['peerJoined', 'peerUpdated', 'peerLeft', 'local', 'permissions', 'locked'] as const) on(type, renderIfOpen);
  if (session.state) renderCount();
  return cleanup.dispose;
}
