import { h } from '../../dom';
import { t } from '../../i18n';
import type { GuestPermissions } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';

const PERMISSIONS: [keyof GuestPermissions, 'people.allowUnmute' | 'people.allowVideo' | 'people.allowScreen'][] = [
  ['unmute', 'people.allowUnmute'],
  ['video', 'people.allowVideo'],
  ['screen', 'people.allowScreen'],
];

/** The room's controls for hosts and co-hosts at the top of People: mute all, lower all hands, lock, and what guests may do. */
export function hostControls(session: RoomSession, act: (run: () => Promise<unknown>) => void): { el: HTMLElement; render(): void } {
  const muteAll = h(
    'button',
    { type: 'button', class: 'btn small secondary', 'data-testid': 'mute-all', onclick: () => act(() => session.call('muteAll', {})) },
    icon('micOff'),
    h('span', {}, t('people.muteAll')),
  );
  const lowerAll = h(
    'button',
    {
      type: 'button',
      class: 'btn small secondary',
      'data-testid': 'lower-all-hands',
      onclick: () => act(() => session.call('lowerAllHands', {})),
    },
    icon('hand'),
    h('span', {}, t('people.lowerAllHands')),
  );
  const lockLabel = h('span', {});
  const lock = h(
    'button',
    {
      type: 'button',
      class: 'btn small secondary',
      'data-testid': 'lock-meeting',
      onclick: () => act(() => session.call('setLocked', { locked: !session.state?.locked })),
    },
    icon('lock'),
    lockLabel,
  );
  const boxes = PERMISSIONS.map(([permission, label]) => {
    const input = h('input', {
      type: 'checkbox',
      'data-testid': `allow-${permission}`,
      onchange: () => act(() => session.call('setPermissions', { [permission]: input.checked })),
    });
    return { permission, input, el: h('label', { class: 'check' }, input, h('span', {}, t(label))) };
  });
  const el = h(
    'div',
    { class: 'host-controls', role: 'group', 'aria-label': t('people.hostControls'), 'data-testid': 'host-controls', hidden: true },
    h('div', { class: 'host-buttons' }, muteAll, lowerAll, lock),
    h('fieldset', { class: 'permissions' }, h('legend', {}, t('people.guestsMay')), ...boxes.map((box) => box.el)),
  );

  function render(): void {
    const state = session.state;
    el.hidden = state?.self.role !== 'host';
    if (!state || el.hidden) return;
    lockLabel.textContent = t(state.locked ? 'people.unlock' : 'people.lock');
    lock.setAttribute('aria-pressed', String(state.locked));
    lowerAll.disabled = state.hands.length === 0;
    for (const box of boxes) box.input.checked = state.permissions[box.permission];
  }
  return { el, render };
}
