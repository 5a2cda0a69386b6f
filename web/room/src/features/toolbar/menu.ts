import { h } from '../../dom';

/** One entry of a menu: a label (and optional leading text, e.g. an emoji or icon) and what it does. */
export interface MenuItem {
  label: string;
  testId?: string;
  /** Shown before the label (an icon or an emoji). */
  lead?: Node | string;
  /** A checked state for toggles (menuitemcheckbox). */
  checked?: boolean;
  disabled?: boolean;
  run(): void;
}

/** An open-able menu anchored to its button. */
export interface Menu {
  el: HTMLElement;
  open(): void;
  close(): void;
  readonly isOpen: boolean;
}

/**
 * A popup menu for `button` (WAI-ARIA menu button): `items()` is read each time it opens; arrow keys, Home and
 * End move between items, Enter/Space run one, Escape and Tab close it and focus returns to the button.
 */
export function menuFor(
  button: HTMLButtonElement,
  items: () => MenuItem[],
  opts: { label: string; testId: string; className?: string; onClose?: () => void; anchored?: boolean },
): Menu {
  const el = h('div', {
    class: `menu ${opts.className ?? ''}`.trim(),
    role: 'menu',
    'aria-label': opts.label,
    'data-testid': opts.testId,
    hidden: true,
  });
  button.setAttribute('aria-haspopup', 'menu');
  button.setAttribute('aria-expanded', 'false');
  let openNow = false;

  const entries = (): HTMLButtonElement[] => [...el.querySelectorAll<HTMLButtonElement>('[role^="menuitem"]:not([disabled])')];
  const focusAt = (index: number) => {
    const all = entries();
    all[(index + all.length) % all.length]?.focus();
  };

  function render(): void {
    el.replaceChildren(
      ...items().map((item) =>
        h(
          'button',
          {
            type: 'button',
            role: item.checked === undefined ? 'menuitem' : 'menuitemcheckbox',
            'aria-checked': item.checked === undefined ? null : String(item.checked),
            class: 'menu-item',
            tabindex: '-1',
            disabled: item.disabled ?? false,
            'data-testid': item.testId ?? null,
            onclick: () => {
              close();
              item.run();
            },
          },
          item.lead ? h('span', { class: 'menu-lead', 'aria-hidden': 'true' }, item.lead) : null,
          h('span', {}, item.label),
        ),
      ),
    );
  }

  function open(): void {
    render();
    el.hidden = false;
    if (opts.anchored) placeBy(button.getBoundingClientRect());
    openNow = true;
    button.setAttribute('aria-expanded', 'true');
    focusAt(0);
    document.addEventListener('pointerdown', onOutside, true);
  }

  /** Fixed under the button (above it when there is no room below), so a scrolling list does not cut it off. */
  function placeBy(anchor: DOMRect): void {
    el.style.position = 'fixed';
    el.style.right = `${Math.max(8, window.innerWidth - anchor.right)}px`;
    const below = window.innerHeight - anchor.bottom >= el.offsetHeight + 12;
    el.style.top = below ? `${anchor.bottom + 4}px` : '';
    el.style.bottom = below ? '' : `${window.innerHeight - anchor.top + 4}px`;
  }

  function close(refocus = true): void {
    if (!openNow) return;
    el.hidden = true;
    openNow = false;
    button.setAttribute('aria-expanded', 'false');
    document.removeEventListener('pointerdown', onOutside, true);
    if (refocus) button.focus();
    opts.onClose?.();
  }

  function onOutside(ev: Event): void {
    if (!el.contains(ev.target as Node) && !button.contains(ev.target as Node)) close(false);
  }

  el.addEventListener('keydown', (ev) => {
    const all = entries();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    const moves: Record<string, number> = {
      ArrowDown: at + 1,
      ArrowRight: at + 1,
      ArrowUp: at - 1,
      ArrowLeft: at - 1,
      Home: 0,
      End: all.length - 1,
    };
    if (ev.key in moves) focusAt(moves[ev.key]!);
    else if (ev.key === 'Escape') close();
    else if (ev.key === 'Tab') close(false);
    else return;
    ev.preventDefault();
    ev.stopPropagation();
  });
  button.addEventListener('click', () => (openNow ? close() : open()));
  button.addEventListener('keydown', (ev) => {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    ev.preventDefault();
    open();
    if (ev.key === 'ArrowUp') focusAt(-1);
  });
  return {
    el,
    open,
    close: () => close(false),
    get isOpen() {
      return openNow;
    },
  };
}
