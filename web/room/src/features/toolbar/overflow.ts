import { h } from '../../dom';
import { t } from '../../i18n';
import { icon } from '../../ui/icons';
import { menuFor, type MenuItem } from './menu';

/**
 * The toolbar's "More" menu. At phone width (below 700 px) the CSS folds the whole middle group into it; wider,
 * the buttons at the end of `group` that do not fit in the toolbar fold into it, so End and Leave always stay in
 * sight, however many features added a button. It lists every folded button of `group` as it is when opened (label,
 * icon, pressed state), so any feature's toolbar button (people, chat, hands, reactions, captions...) goes into it
 * without knowing about it. Returns the button, the menu and a `dispose` that stops watching the toolbar.
 */
export function overflowMenu(group: HTMLElement): { button: HTMLButtonElement; menu: HTMLElement; dispose(): void } {
  group.classList.add('overflowable');
  const button = h(
    'button',
    { type: 'button', class: 'tool more-tool', 'data-testid': 'more', 'aria-label': t('room.moreLabel') },
    icon('more'),
    h('span', { class: 'tool-label' }, t('room.more')),
  );
  const tools = () => [...group.querySelectorAll<HTMLButtonElement>(':scope > button.tool')].filter((tool) => !tool.hidden);
  // Folded: hidden by the phone layout (the group is not displayed) or moved out for room.
  const folded = (tool: HTMLButtonElement) => tool.classList.contains('overflowed') || tool.offsetParent === null;
  const items = (): MenuItem[] =>
    tools()
      .filter(folded)
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

  /** Puts every button back, then folds the last ones until the toolbar fits (nothing to do on phones: the CSS folds all). */
  function fit(): void {
    const toolbar = group.parentElement;
    if (!toolbar || !group.isConnected) return;
    for (const tool of tools()) tool.classList.remove('overflowed');
    toolbar.classList.remove('overflowing');
    if (getComputedStyle(group).display === 'none' || toolbar.scrollWidth <= toolbar.clientWidth) return;
    toolbar.classList.add('overflowing');
    for (const tool of tools().reverse()) {
      tool.classList.add('overflowed');
      if (toolbar.scrollWidth <= toolbar.clientWidth) break;
    }
  }

  let frame = 0;
  const refit = () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(fit);
  };
  const resized = new ResizeObserver(refit);
  // Buttons come and go (features mount, hide or relabel theirs): fit again. Folding only changes classes, which is not watched.
  const changed = new MutationObserver(refit);
  queueMicrotask(() => {
    if (group.parentElement) resized.observe(group.parentElement);
    changed.observe(group, { childList: true, subtree: true, characterData: true, attributeFilter: ['hidden'] });
    refit();
  });
  return {
    button,
    menu: menu.el,
    dispose() {
      cancelAnimationFrame(frame);
      resized.disconnect();
      changed.disconnect();
    },
  };
}
