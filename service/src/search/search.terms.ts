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
  // ASCII has nothing to decompose, and most transcripts are ASCII: skipping normalisation halves ranking's cost.
  if (!/[^\x20-\x7e]/.test(text)) return text.toLowerCase();
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

/** Words a snippet shows at most, as FTS5's snippet() with the same setting. */
const SNIPPET_WORDS = 16;

/**
 * The part of `text` around its matches, FTS5 snippet style: at most 16 words around the run holding the
 * most matched words (the earliest such run), each match in [brackets], with an ellipsis where text was cut.
 * `words` are folded (see `foldText`); the text keeps its own spelling and punctuation.
 */
export function snippetOf(text: string, words: string[]): string {
  const wanted = new Set(words);
  const tokens = [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({
    at: m.index,
    end: m.index + m[0].length,
    hit: wanted.has(foldText(m[0])),
  }));
  let start = 0;
  let best = -1;
  for (let i = 0; i <= Math.max(0, tokens.length - SNIPPET_WORDS); i++) {
    const hits = tokens.slice(i, i + SNIPPET_WORDS).filter((t) => t.hit).length;
    if (hits > best) [start, best] = [i, hits];
  }
  // Centre the matches of that run in the snippet, so that words around the first and the last are shown.
  const hitIndexes = tokens.flatMap((t, i) => (t.hit && i >= start && i < start + SNIPPET_WORDS ? [i] : []));
  if (hitIndexes.length > 0) {
    const slack = SNIPPET_WORDS - (hitIndexes.at(-1)! - hitIndexes[0]! + 1);
    start = Math.max(0, Math.min(hitIndexes[0]! - Math.floor(slack / 2), tokens.length - SNIPPET_WORDS));
  }
  const shown = tokens.slice(start, start + SNIPPET_WORDS);
  if (shown.length === 0) return text;
  const cutAtEnd = start + SNIPPET_WORDS < tokens.length;
  const from = start === 0 ? 0 : shown[0]!.at;
  const to = cutAtEnd ? shown.at(-1)!.end : text.length;
  let out = '';
  let at = from;
  for (const token of shown.filter((t) => t.hit)) {
    out += `${text.slice(at, token.at)}[${text.slice(token.at, token.end)}]`;
    at = token.end;
  }
  return `${start === 0 ? '' : '…'}${out}${text.slice(at, to)}${cutAtEnd ? '…' : ''}`;
}
