import { h } from '../../dom';
import { t } from '../../i18n';
import { icon } from '../../ui/icons';
import { menuFor, type MenuItem } from './menu';

/**
 * The toolbar's "More" menu for phone widths (the CSS shows the button and hides the middle group below 700 px):
 * it lists every visible button of `group` as it is when opened (label, icon, pressed state), so any feature's
 * toolbar button (people, chat, hands, reactions, captions...) goes into it without knowing about it.
 */
export function overflowMenu(group: HTMLElement): { button: HTMLButtonElement; menu: HTMLElement } {
  group.classList.add('overflowable');
  const button = h(
    'button',
    { type: 'button', class: 'tool more-tool', 'data-testid': 'more', 'aria-label': t('room.moreLabel') },
    icon('more'),
    h('span', { class: 'tool-label' }, t('room.more')),
  );
  const items = (): MenuItem[] =>
    [...group.querySelectorAll<HTMLButtonElement>(':scope > button.tool')]
      .filter((tool) => !tool.hidden)
      .map((tool) => {
        const pressed = tool.getAttribute('aria-pressed');
        const badge = tool.querySelector('.badge:not([hidden])')?.textContent;
        const label = tool.querySelector('.tool-label')?.textContent ?? tool.getAttribute('aria-label') ?? '';
        return {
          label: badge ? `${label} (${badge})` : label,
          lead: tool.querySelector('svg')?.cloneNode(true) ?? undefined,
          testId: tool.dataset.testid ? `more-${tool.dataset.testid}` : undefined,
          checked: pressed === null ? undefined : pressed === 'true',
          disabled: tool.disabled,
          run: () => tool.click(),
        };
      });
  const menu = menuFor(button, items, { label: t('room.moreLabel'), testId: 'more-menu', className: 'floating more-menu' });
  return { button, menu: menu.el };
}
