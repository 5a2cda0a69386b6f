import { h, hueOf, initials } from '../../dom';
import { t } from '../../i18n';
import type { PeerInfo } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';

/** The people panel: everyone in the call with their microphone state and, for hosts, a Remove button; its toolbar button shows the count. */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const list = h('ul', { class: 'people-list', 'data-testid': 'participant-list' });
  const heading = h('h2', { id: 'people-heading' }, t('people.title'));
  const body = h('section', { class: 'panel-body', 'aria-labelledby': 'people-heading' }, heading, list);
  const button = h(
    'button',
    { type: 'button', class: 'tool', 'data-testid': 'open-people', onclick: () => slot.panels.toggle('people') },
    icon('people'),
    h('span', { class: 'tool-label' }, t('people.title')),
  );
  const badge = h('span', { class: 'badge' });
  button.append(badge);
  slot.tools.add(button);
  cleanup.remove(button, body);
  cleanup.add(slot.panels.add({ name: 'people', button, body, opened: render }));

  function person(p: PeerInfo): HTMLElement {
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
      h('span', { class: 'mic-state', title: t(muted ? 'device.microphoneOff' : 'device.microphoneOn') }, icon(muted ? 'micOff' : 'mic')),
      session.state?.self.role === 'host' && !self
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn small secondary',
              'data-testid': 'remove',
              'aria-label': t('people.removeName', { name: p.name }),
              onclick: () =>
                void session.hostAction('remove', p.id).catch((err) => slot.toast(t('error.remove', { name: p.name, error: String(err) }))),
            },
            t('people.remove'),
          )
        : null,
    );
  }

  function render(): void {
    if (session.state) list.replaceChildren(...[session.state.self, ...session.peers.values()].map(person));
  }

  function renderCount(): void {
    const count = session.state?.participantCount ?? 0;
    badge.textContent = String(count);
    button.setAttribute('aria-label', t('people.titleCount', { count }));
    heading.textContent = t('people.titleCount', { count });
  }

  const renderIfOpen = () => slot.panels.isOpen('people') && render();
  on('joined', () => {
    renderCount();
    renderIfOpen();
  });
  on('participantCount', renderCount);
  on('peerJoined', renderIfOpen);
  on('peerUpdated', renderIfOpen);
  on('peerLeft', renderIfOpen);
  on('local', renderIfOpen);
  if (session.state) renderCount();
  return cleanup.dispose;
}
