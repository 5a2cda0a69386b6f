/**
 * Words that carry no topic in a question: function words, and words about meetings themselves ("what did we
 * decide about the budget?" is about the budget; the transcript says what was decided, rarely that it was).
 */
const STOP_WORDS = new Set(
  (
    'a about above after again against agree agreed all also am an and any anyone anything are as ask asked at be because been ' +
    'before being below between both but by can could decide decided decision decisions did didn discuss discussed ' +
    'discussion do does doesn doing don done down during each either else ever every few for from further get gets ' +
    'getting give given go goes going gone got had has have having he her here hers herself him himself his how i if in ' +
    'into is isn it its itself just know let lets like many me meeting meetings mention mentioned might mine more most much must ' +
    'my myself need no nor not now of off on once only or other others our ours ourselves out over own please said same ' +
    'say says she should so some someone something such talk talked tell than that the their theirs them themselves then ' +
    'there these they thing things think this those through to told too under until up upon us very was wasn we were ' +
    'what whats when where whether which while who whom whose why will with within without won would yes yet you your ' +
    'yours yourself'
  ).split(' '),
);

/** Suffixes stripped by `stemOf`, longest first; each leaves a prefix of the word, so the stem works as an FTS5 prefix query. */
const SUFFIXES = [
  'ational',
  'ations',
  'ation',
  'ements',
  'ement',
  'ments',
  'ment',
  'ingly',
  'ings',
  'ing',
  'ities',
  'ity',
  'iness',
  'ness',
  'ators',
  'ator',
  'ated',
  'ates',
  'ate',
  'ies',
  'ied',
  'ily',
  'edly',
  'ers',
  'er',
  'est',
  'ed',
  'es',
  'ly',
  'al',
  's',
  'y',
  'e',
];

/** Shortest stem `stemOf` leaves. */
const MIN_STEM = 3;
/** Words of a question that count; more are ignored so that a pasted paragraph cannot make one question expensive. */
const MAX_TERMS = 16;

/** Lower case, accents removed, compatibility forms folded: how the index's unicode61 tokenizer sees text. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** The words of `text` as the index tokenizes them (folded, split at anything that is not a letter or a digit). */
export function wordsOf(text: string): string[] {
  return foldText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A crude stem: suffixes stripped until none applies, so that hire, hired and hiring (and renegotiate and
 * renegotiation) share one. The stem is always a prefix of the word; words of up to three letters and
 * numbers stay as they are.
 */
export function stemOf(word: string): string {
  let stem = word;
  for (let changed = true; changed;) {
    changed = false;
    if (/\d/.test(stem)) break;
    for (const suffix of SUFFIXES) {
      if (!stem.endsWith(suffix) || stem.length - suffix.length < MIN_STEM) continue;
      if (suffix === 's' && /(ss|us|is)$/.test(stem)) continue;
      stem = stem.slice(0, -suffix.length);
      // cutting -> cutt -> cut, planned -> plann -> plan, but fill and press keep their double letter.
      if (/^(ing|ed|er|est|ers)$/.test(suffix) && stem.length > MIN_STEM && /([^aeiouylsz])\1$/.test(stem)) stem = stem.slice(0, -1);
      changed = true;
      break;
    }
  }
  return stem;
}

/** A question's content words, one per stem, in the order asked: stop words dropped, at most 16. */
export function questionTerms(question: string): string[] {
  const stems = wordsOf(question)
    .filter((word) => !STOP_WORDS.has(word) && (word.length > 1 || /\d/.test(word)))
    .map(stemOf);
  return [...new Set(stems)].slice(0, MAX_TERMS);
}

/** An FTS5 MATCH expression for any of the stems, each as a prefix query (`"budget"*`), so that it finds every form of the word. */
export function anyTermExpression(stems: string[]): string {
  return stems.map((stem) => `"${stem}"*`).join(' OR ');
}
