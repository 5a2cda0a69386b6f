import type { EmbedTheme } from '../../../embed/sdk/src/protocol';

/** The room page's colour scheme; `system` follows the viewer's `prefers-color-scheme`, live. */
export type Theme = EmbedTheme;

/** The themes the page knows. */
export const THEMES: readonly Theme[] = ['light', 'dark', 'system'];

/** Whether `value` names a theme. */
export function isTheme(value: unknown): value is Theme {
  return THEMES.includes(value as Theme);
}

/** The theme `?theme=` asks for; `system` when it is absent or unknown. */
export function pickTheme(search: string = location.search): Theme {
  const asked = new URLSearchParams(search).get('theme');
  return isTheme(asked) ? asked : 'system';
}

/** Shows the page in `theme` at once (styles.css keys its palette on `<html data-theme>`); the embed bridge calls it on `setTheme`. */
export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
}
