import { de } from '../web/room/src/i18n/de';
import { en, type Messages, type Plural } from '../web/room/src/i18n/en';
import { fr } from '../web/room/src/i18n/fr';
import { LOCALES, pickLocale } from '../web/room/src/i18n/locale';

const translations: [string, Messages][] = [
  ['de', de],
  ['fr', fr],
];

/** The `{name}` placeholders of a text, sorted. */
function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
}

describe('the room page’s message catalogues', () => {
  it('every language has the English keys, no more, and each text is filled in', () => {
    expect(LOCALES).toEqual(['en', 'de', 'fr']);
    for (const [, messages] of translations) {
      expect(Object.keys(messages).sort()).toEqual(Object.keys(en).sort());
      for (const value of Object.values(messages)) {
        for (const text of typeof value === 'string' ? [value] : Object.values(value)) expect(text.trim()).not.toBe('');
      }
    }
  });

  it('translations keep the placeholders of the English text, and plural forms where English has them', () => {
    for (const [locale, messages] of translations) {
      for (const [key, source] of Object.entries(en) as [keyof Messages, string | Plural][]) {
        const target = messages[key];
        const where = `${locale} ${key}`;
        if (typeof source === 'string') {
          expect([where, typeof target === 'string' ? placeholders(target) : target]).toEqual([where, placeholders(source)]);
          continue;
        }
        const forms = target as Plural;
        expect([where, placeholders(forms.other)]).toEqual([where, placeholders(source.other)]);
        if (source.one !== undefined) expect([where, typeof forms.one]).toEqual([where, 'string']);
      }
    }
  });

  it('picks the language from the embed path, then ?lang=, then the browser, falling back to English', () => {
    const at = (path: string, languages: string[] = []) => {
      const url = new URL(path, 'http://svc.test');
      return pickLocale(url, languages);
    };
    expect(at('/de/embed/svc_et_abc')).toBe('de');
    expect(at('/fr/embed/m/abc-defg-hij', ['de-DE'])).toBe('fr');
    expect(at('/de-AT/embed/m/abc-defg-hij')).toBe('de');
    expect(at('/xx/embed/m/abc-defg-hij', ['fr'])).toBe('en');
    expect(at('/m/abc-defg-hij?lang=fr', ['de'])).toBe('fr');
    expect(at('/m/abc-defg-hij?lang=DE-ch')).toBe('de');
    expect(at('/m/abc-defg-hij?lang=xx', ['de'])).toBe('en');
    expect(at('/m/abc-defg-hij', ['es-ES', 'fr-CA', 'de'])).toBe('fr');
    expect(at('/m/abc-defg-hij', ['es', 'it'])).toBe('en');
    expect(at('/m/abc-defg-hij', [])).toBe('en');
    // A meeting code that happens to look like a locale is not one.
    expect(at('/m/de', ['fr'])).toBe('fr');
  });
});
