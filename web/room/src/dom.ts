import { formatLocales } from './i18n';

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** Creates an element: `on<event>` attributes become listeners, `true` booleans bare attributes, null/false are skipped. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, ...children);
  return el;
}

/** Appends children, skipping empty ones. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) if (child) parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
}

/** Replaces the page's content with `node`. */
export function mount(node: Node): void {
  document.getElementById('app')!.replaceChildren(node);
}

/** Up to two initials of a display name, for avatars. */
export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0]!, parts[parts.length - 1]!] : parts;
  return letters.map((p) => [...p][0]!.toUpperCase()).join('') || '?';
}

/** A stable hue (0-359) for a name, so each person's avatar keeps its colour. */
export function hueOf(text: string): number {
  let hash = 0;
  for (const ch of text) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return hash % 360;
}

/** "14:05" as the page's language writes it. */
export function clockTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(formatLocales(), { hour: '2-digit', minute: '2-digit' });
}
