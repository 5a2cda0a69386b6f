import './breakouts.css';
import { h } from '../../dom';
import { t } from '../../i18n';
import type { BreakoutState } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';
import { hostControls } from './breakouts-host';

/**
 * Breakout rooms: a banner above the toolbar (your room and a one-click Join, the room you are in and
 * Back to main room, the closing countdown, the host's timer) and the Breakout rooms panel (the rooms and who
 * is assigned; hosts prepare, assign, open, message, time, visit and close them). Moving sets the media up
 * again on the other room's router without reloading the page.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  let state: BreakoutState | null = null;
  let moving = false;
  const isHost = () => session.state?.self.role === 'host';

  const banner = h('div', { class: 'breakout-banner', role: 'status', hidden: true, 'data-testid': 'breakout-banner' });
  const list = h('div', { class: 'breakout-rooms', 'data-testid': 'breakout-rooms' });
  const host = h('div');
  const body = h(
    'section',
    { class: 'panel-body breakouts', 'aria-labelledby': 'breakouts-heading', 'data-testid': 'breakouts-panel' },
    h('h2', { id: 'breakouts-heading' }, t('breakouts.title')),
    host,
    list,
  );
  const button = h(
    'button',
    { type: 'button', class: 'tool', 'data-testid': 'open-breakouts', hidden: true, onclick: () => slot.panels.toggle('breakouts') },
    icon('breakout'),
    h('span', { class: 'tool-label' }, t('breakouts.title')),
  );
  slot.aside.add(banner);
  slot.tools.add(button);
  cleanup.remove(banner, button, body);
  cleanup.add(slot.panels.add({ name: 'breakouts', button, body }));
  const ticker = window.setInterval(() => renderBanner(), 1000);
  cleanup.add(() => window.clearInterval(ticker));

  const actions = {
    run(request: () => Promise<unknown>): void {
      request()
        .then((answer) => {
          const next = (answer as { breakouts?: BreakoutState } | undefined)?.breakouts;
          if (next) update(next);
        })
        .catch((err: unknown) => slot.toast(t('breakouts.failed', { error: err instanceof Error ? err.message : String(err) })));
    },
    move(room: string | null): void {
      if (moving) return;
      moving = true;
      render();
      session
        .moveToBreakout(room)
        .catch((err: unknown) => slot.toast(t('breakouts.failed', { error: err instanceof Error ? err.message : String(err) })))
        .finally(() => {
          moving = false;
          render();
        });
    },
  };

  function update(next: BreakoutState): void {
    state = next;
    render();
  }

  function render(): void {
    const active = state !== null && state.status !== 'none';
    button.hidden = !isHost() && !(active && (state!.mine || state!.current));
    host.replaceChildren(...(isHost() && state ? [hostControls(session, state, actions)] : []));
    list.replaceChildren(...(state?.rooms ?? []).map((room) => roomCard(room)));
    renderBanner();
  }

  function roomCard(room: BreakoutState['rooms'][number]): HTMLElement {
    const here = state!.current === room.id;
    const canEnter = state!.status === 'open' && !here && (isHost() || state!.mine === room.id);
    return h(
      'article',
      { class: `breakout-room${here ? ' here' : ''}`, 'data-testid': 'breakout-room', 'data-room-id': room.id },
      h('h3', {}, room.name, here ? h('span', { class: 'role' }, t('breakouts.here')) : null),
      h('p', { class: 'muted' }, room.assigned.length ? room.assigned.map((a) => a.name).join(', ') : t('breakouts.nobody')),
      canEnter
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn secondary small',
              'data-testid': 'breakout-enter',
              disabled: moving,
              onclick: () => actions.move(room.id),
            },
            t(isHost() && state!.mine !== room.id ? 'breakouts.visit' : 'breakouts.join', { room: room.name }),
          )
        : null,
    );
  }

  function renderBanner(): void {
    const s = state;
    const parts: Node[] = [];
    if (s && s.status !== 'none') {
      const current = s.rooms.find((room) => room.id === s.current);
      const mine = s.rooms.find((room) => room.id === s.mine);
      if (current) {
        parts.push(h('span', { 'data-testid': 'breakout-current' }, t('breakouts.inRoom', { room: current.name })));
        parts.push(bannerButton('breakout-leave', t('breakouts.back'), () => actions.move(null)));
      } else if (mine && s.status === 'open') {
        parts.push(h('span', {}, t('breakouts.assigned', { room: mine.name })));
        parts.push(bannerButton('breakout-join', t('breakouts.join', { room: mine.name }), () => actions.move(mine.id)));
      }
      const left = (iso: string | null) => (iso ? Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 1000)) : null);
      const closing = s.status === 'closing' ? left(s.closes_at) : null;
      const timer = s.status === 'open' ? left(s.timer_ends_at) : null;
      if (closing !== null) parts.push(h('strong', { 'data-testid': 'breakout-countdown' }, t('breakouts.closingIn', { count: closing })));
      else if (timer !== null) parts.push(h('span', { class: 'muted' }, t('breakouts.timeLeft', { time: clock(timer) })));
    }
    banner.replaceChildren(...parts);
    banner.hidden = parts.length === 0;
  }

  function bannerButton(testId: string, label: string, onClick: () => void): HTMLButtonElement {
    return h('button', { type: 'button', class: 'btn primary small', 'data-testid': testId, disabled: moving, onclick: onClick }, label);
  }

  async function load(): Promise<void> {
    try {
      update((await session.call('listBreakouts', {})).breakouts);
    } catch {
      // Shown as no breakout rooms; the next change is announced.
    }
  }

  on('joined', () => void load());
  on('breakouts', ({ breakouts }) => update(breakouts));
  on('breakoutMessage', ({ text, from }) => slot.toast(t('breakouts.messageFrom', { from, text }), 'breakout-message-toast'));
  on('breakoutMoved', ({ room, reconnected }) =>
    slot.toast(room ? t(reconnected ? 'breakouts.reconnectedIn' : 'breakouts.movedIn', { room: room.name }) : t('breakouts.movedBack')),
  );
  render();
  if (session.phase === 'joined') void load();
  return cleanup.dispose;
}

function clock(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
