import { h } from '../../dom';
import { t } from '../../i18n';
import { BREAKOUT_LIMITS, type BreakoutState } from '../../protocol';
import type { RoomSession } from '../../room-session';

/** What the host's controls do: run a request (errors become a toast) and move the host. */
export interface HostActions {
  run(request: () => Promise<unknown>): void;
  move(room: string | null): void;
}

/**
 * Hosts: prepare N rooms, assign each person (a select per person) or at random, open, set a timer,
 * message every room, visit any room, close them all.
 */
export function hostControls(session: RoomSession, state: BreakoutState, actions: HostActions): HTMLElement {
  const call = session.call.bind(session);
  const status = state.status;
  const box = h('div', { class: 'breakout-host', 'data-testid': 'breakout-host' });
  if (status === 'none' || status === 'draft') {
    const count = h('input', {
      id: 'breakout-count',
      type: 'number',
      min: 1,
      max: BREAKOUT_LIMITS.maxRooms,
      value: String(Math.max(2, state.rooms.length)),
      'data-testid': 'breakout-count',
    });
    const create = h('button', { type: 'button', class: 'btn secondary small', 'data-testid': 'breakout-create' }, t('breakouts.create'));
    create.addEventListener('click', () => {
      const n = Math.min(BREAKOUT_LIMITS.maxRooms, Math.max(1, Number(count.value) || 1));
      const names = Array.from({ length: n }, (_, i) => t('breakouts.roomName', { number: i + 1 }));
      actions.run(() => call('createBreakouts', { names }));
    });
    box.append(h('div', { class: 'breakout-row' }, h('label', { for: 'breakout-count' }, t('breakouts.count')), count, create));
  }
  if (state.rooms.length > 0 && status !== 'closing') {
    box.append(assignments(state, (identity, room) => actions.run(() => call('assignBreakouts', { assignments: [{ identity, room }] }))));
    const random = button('breakout-random', t('breakouts.random'), () => actions.run(() => call('assignBreakoutsRandomly', {})));
    box.append(h('div', { class: 'breakout-row' }, random));
  }
  if (status === 'draft') {
    box.append(
      h(
        'div',
        { class: 'breakout-row' },
        button('breakout-open', t('breakouts.open'), () => actions.run(() => call('openBreakouts', {})), 'primary'),
      ),
    );
  }
  if (status === 'open') {
    const message = h('input', {
      id: 'breakout-message',
      type: 'text',
      maxlength: BREAKOUT_LIMITS.maxMessageLength,
      'data-testid': 'breakout-message',
    });
    const send = button('breakout-broadcast', t('breakouts.broadcast'), () => {
      const text = message.value.trim();
      if (text) actions.run(() => call('broadcastToBreakouts', { text }).then(() => (message.value = '')));
    });
    const minutes = h('input', { id: 'breakout-minutes', type: 'number', min: 1, max: BREAKOUT_LIMITS.maxTimerMinutes, value: '10' });
    const timer = button('breakout-timer', t('breakouts.setTimer'), () =>
      actions.run(() => call('setBreakoutTimer', { minutes: Math.max(1, Number(minutes.value) || 1) })),
    );
    box.append(
      h('label', { for: 'breakout-message' }, t('breakouts.message')),
      h('div', { class: 'breakout-row' }, message, send),
      h('label', { for: 'breakout-minutes' }, t('breakouts.timerMinutes')),
      h('div', { class: 'breakout-row' }, minutes, timer),
      h(
        'div',
        { class: 'breakout-row' },
        button('breakout-close', t('breakouts.closeAll'), () => actions.run(() => call('closeBreakouts', {})), 'danger'),
      ),
    );
  }
  return box;
}

function assignments(state: BreakoutState, assign: (identity: string, room: string | null) => void): HTMLElement {
  const roomOf = (identity: string) => state.rooms.find((room) => room.assigned.some((a) => a.identity === identity))?.id ?? '';
  return h(
    'ul',
    { class: 'breakout-people', 'aria-label': t('breakouts.assign') },
    ...state.people.map((person) => {
      const select = h(
        'select',
        { 'aria-label': t('breakouts.assignPerson', { name: person.name }), 'data-testid': 'breakout-assign', 'data-name': person.name },
        h('option', { value: '' }, t('breakouts.unassigned')),
        ...state.rooms.map((room) => h('option', { value: room.id }, room.name)),
      );
      select.value = roomOf(person.identity);
      select.addEventListener('change', () => assign(person.identity, select.value || null));
      return h('li', {}, h('span', { class: 'person-name' }, person.name), select);
    }),
  );
}

function button(
  testId: string,
  label: string,
  onClick: () => void,
  variant: 'primary' | 'secondary' | 'danger' = 'secondary',
): HTMLButtonElement {
  return h('button', { type: 'button', class: `btn ${variant} small`, 'data-testid': testId, onclick: onClick }, label);
}
