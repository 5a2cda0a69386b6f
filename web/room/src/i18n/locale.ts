import { EMBED_LOCALES, type EmbedLocale } from '../../../../embed/sdk/src/protocol';

/** A language of the room page (the embed protocol's list is the one list). */
export type Locale = EmbedLocale;

/** The languages the room page speaks, English first (the fallback). */
export const LOCALES: readonly Locale[] = EMBED_LOCALES;

/** The supported locale a language tag names (`de-AT` is `de`), or null. */
export function matchLocale(tag: string | null | undefined): Locale | null {
  const base = tag?.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return LOCALES.find((l) => l === base) ?? null;
}

/**
 * The page's language: the first path segment of `/<locale>/embed/...`, else `?lang=`, else the first of the
 * browser's `languages` we speak. An explicit choice we do not speak, and a browser we cannot serve, get English.
 */
export function pickLocale(url: { pathname: string; search: string }, languages: readonly string[]): Locale {
  const embed = /^\/([^/]+)\/embed(?:\/|$)/.exec(url.pathname);
  const explicit = embed ? decodeURIComponent(embed[1]!) : new URLSearchParams(url.search).get('lang');
  if (explicit) return matchLocale(explicit) ?? 'en';
  for (const tag of languages) {
    const locale = matchLocale(tag);
    if (locale) return locale;
  }
  return 'en';
}
