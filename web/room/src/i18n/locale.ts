import type { EmbedLocale } from '../../../../embed/sdk/src/protocol.js' with { 'resolution-mode': 'import' };

/** A language of the room page: the embed protocol's `EmbedLocale`. */
export type Locale = EmbedLocale;

/**
 * The languages the room page speaks, English first (the fallback). The protocol's list as a value would make
 * this file import an ES module package, which the Node-side tests cannot; the type keeps both lists equal.
 */
export const LOCALES = ['en', 'de', 'fr'] as const satisfies readonly Locale[];
type MissingLocale = Exclude<Locale, (typeof LOCALES)[number]>;
/** Fails to compile when the protocol gains a locale this list lacks. */
export const EVERY_PROTOCOL_LOCALE: MissingLocale extends never ? true : never = true;

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
