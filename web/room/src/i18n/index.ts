import { de } from './de';
import { en, type MessageKey, type Messages, type Plural } from './en';
import { fr } from './fr';
import { matchLocale, type Locale } from './locale';

export type { MessageKey, Messages } from './en';
export { LOCALES, matchLocale, pickLocale, type Locale } from './locale';

const CATALOGUES: Record<Locale, Messages> = { en, de, fr };

// One page shows one language: the locale is the page's, set once at startup (and by tests).
const current = { locale: 'en' as Locale, plurals: new Intl.PluralRules('en') };

/** Switches the page's texts to `locale` and sets `<html lang>`; texts already on screen stay as they are. */
export function setLocale(locale: Locale): void {
  current.locale = locale;
  current.plurals = new Intl.PluralRules(locale);
  document.documentElement.lang = locale;
}

/** The locale `t` translates into. */
export function currentLocale(): Locale {
  return current.locale;
}

/** Locales for dates and numbers: the browser's own when they are the page's language (so en-GB keeps its 24-hour clock), else the page's. */
export function formatLocales(): string[] {
  return matchLocale(navigator.language) === current.locale ? [...navigator.languages] : [current.locale];
}

/** Parameters of a message: `{name}` placeholders; `count` also picks the plural form. */
export type MessageParams = Record<string, string | number>;

/** The text of `key` in the current locale, with `{name}` placeholders filled from `params` (plural forms chosen by `params.count`). */
export function t(key: MessageKey, params: MessageParams = {}): string {
  const message: string | Plural = CATALOGUES[current.locale][key];
  const text = typeof message === 'string' ? message : pluralForm(message, Number(params.count ?? 0));
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

function pluralForm(forms: Plural, count: number): string {
  return forms[current.plurals.select(count)] ?? forms.other;
}
