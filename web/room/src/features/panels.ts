import { h } from '../dom';
import { t } from '../i18n';
import { icon } from '../ui/icons';

/** A panel's name: one of them is open at a time. */
export type PanelName = 'people' | 'chat' | 'settings' | 'polls' | 'breakouts';

/** A panel a feature adds: the toolbar button that opens it, its body, and what to do as it opens. */
export interface PanelEntry {
  name: PanelName;
  button: HTMLElement;
  body: HTMLElement;
  /** Called after the body is shown. */
  opened?(): void;
}

/** The side panel: shows the body of at most one registered panel, with a close button. */
export class Panels {
  readonly el: HTMLElement;
  private readonly close: HTMLElement;
  private readonly entries = new Map<PanelName, PanelEntry>();
  private readonly toggled = new Set<() => void>();
  private current: PanelName | null = null;

  constructor() {
    this.close = h('button', { type: 'button', class: 'icon-btn panel-close', 'aria-label': t('room.closePanel') }, icon('close'));
    this.el = h('aside', { class: 'panel', hidden: true, 'data-testid': 'panel' }, this.close);
    this.close.addEventListener('click', () => this.current && this.toggle(this.current));
  }

  /** Adds a panel; the returned function takes it away again (closing it when open). */
  add(entry: PanelEntry): () => void {
    this.entries.set(entry.name, entry);
    return () => {
      if (this.current === entry.name) this.toggle(entry.name);
      this.entries.delete(entry.name);
    };
  }

  /** Whether `name` is the open panel. */
  isOpen(name: PanelName): boolean {
    return this.current === name;
  }

  /** Opens `name`, or closes it when it is open; nothing when no feature added it. */
  toggle(name: PanelName): void {
    if (!this.entries.has(name)) return;
    this.current = this.current === name ? null : name;
    this.el.hidden = this.current === null;
    this.el.replaceChildren(this.close);
    for (const entry of this.entries.values()) {
      entry.button.setAttribute('aria-expanded', String(this.current === entry.name));
      entry.button.classList.toggle('active', this.current === entry.name);
    }
    const open = this.current ? this.entries.get(this.current) : undefined;
    if (open) {
      this.el.append(open.body);
      open.opened?.();
    }
    for (const fn of this.toggled) fn();
  }

  /** Calls `fn` after each open or close (the stage lays itself out again); returns the unsubscribe. */
  onToggle(fn: () => void): () => void {
    this.toggled.add(fn);
    return () => this.toggled.delete(fn);
  }
}
