import { stemOf, wordsOf } from './search.terms';

/** BM25's term-frequency saturation and length normalisation, at their usual values. */
const K1 = 1.2;
const B = 0.75;
/**
 * How much the context of a passage (the segments just before and after it, and its meeting's title) counts
 * towards its score and coverage: an answer is often said across two segments of a meeting whose title names the
 * topic, but a word said nearby is weaker evidence than a word in the passage.
 */
const CONTEXT_WEIGHT = 0.5;
/** Relevant: the passage with its neighbours and title holds this share of what the question weighs ... */
const MIN_CONTEXT_COVERAGE = 0.5;
/** ... and the passage itself this share. */
const MIN_OWN_COVERAGE = 0.25;

/** What ranking needs of a passage: its text, its meeting and (transcript segments) its position. */
export interface Passage {
  text: string;
  meeting: { id: string; title: string };
  segment_index: number | null;
}

/** A passage with how well it answers a question. */
export interface Ranked<T> {
  item: T;
  /** BM25 over stems, plus a share of its neighbours' and its meeting title's: higher is better. */
  score: number;
  /** The share of the question's weight (rare words weigh more) in the passage, 0..1. */
  ownCoverage: number;
  /** The same share counting, at half weight, the words of the question found only in its context (adjacent segments, meeting title), 0..1. */
  coverage: number;
  /** The question's stems the passage contains. */
  matched: string[];
}

/** How common each stem is: entries in scope containing it, out of `total`. */
export interface TermFrequencies {
  total: number;
  containing: Map<string, number>;
}

/** Inverse document frequency: a word in every entry weighs almost nothing, a word in one weighs most. */
export function idf(containing: number, total: number): number {
  return Math.log(1 + (Math.max(total, containing) - containing + 0.5) / (containing + 0.5));
}

/**
 * BM25 of each document (its tokens) for weighted terms: term frequency saturated by K1, normalised by the
 * document's length against the average of `docs`; `matches` says whether a token is an occurrence of a term.
 */
export function bm25Scores<Token>(
  docs: Token[][],
  terms: { term: string; weight: number }[],
  matches: (token: Token, term: string) => boolean,
): number[] {
  const averageLength = Math.max(1, docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, docs.length));
  return docs.map((tokens) => {
    const norm = K1 * (1 - B + (B * tokens.length) / averageLength);
    return terms.reduce((sum, { term, weight }) => {
      const tf = tokens.filter((token) => matches(token, term)).length;
      return sum + (weight * tf * (K1 + 1)) / (tf + norm);
    }, 0);
  });
}

/** A stem matches a word of the same stem, and (when it is long enough to be specific) a longer word it begins: "check" in "checkout". */
function contains(w: { word: string; stem: string }, stem: string): boolean {
  return w.stem === stem || (stem.length >= 5 && w.word.startsWith(stem));
}

function tokens(text: string): { word: string; stem: string }[] {
  return wordsOf(text).map((word) => ({ word, stem: stemOf(word) }));
}

/**
 * Ranks passages for a question's stems, best first: BM25 computed over stems (so "hiring" matches "hire") with
 * the document frequencies of the whole scope, plus part of the scores of the adjacent transcript segments and of
 * the question's words in the meeting's title, since an answer is often said across two segments of a meeting
 * whose title names the topic ("What caused the outage?" in "Incident retro: checkout outage").
 */
export function rankPassages<T extends Passage>(items: T[], stems: string[], frequencies: TermFrequencies): Ranked<T>[] {
  const weights = new Map(stems.map((stem) => [stem, idf(frequencies.containing.get(stem) ?? 0, frequencies.total)]));
  const totalWeight = [...weights.values()].reduce((sum, w) => sum + w, 0) || 1;
  const weightOf = (matched: Iterable<string>) => [...matched].reduce((sum, stem) => sum + weights.get(stem)!, 0);
  const matchedIn = (words: { word: string; stem: string }[]) => stems.filter((stem) => words.some((w) => contains(w, stem)));

  const passages = items.map((item) => tokens(item.text));
  const scores = bm25Scores(
    passages,
    stems.map((stem) => ({ term: stem, weight: weights.get(stem)! })),
    contains,
  );
  const own = items.map((item, i) => ({ item, score: scores[i]!, matched: matchedIn(passages[i]!) }));

  const at = new Map(own.filter((p) => p.item.segment_index !== null).map((p) => [`${p.item.meeting.id}#${p.item.segment_index}`, p]));
  const titles = new Map<string, string[]>();
  const titleMatches = (meeting: Passage['meeting']) => {
    if (!titles.has(meeting.id)) titles.set(meeting.id, matchedIn(tokens(meeting.title)));
    return titles.get(meeting.id)!;
  };
  return own
    .map(({ item, score, matched }) => {
      const index = item.segment_index;
      const neighbours = index === null ? [] : [index - 1, index + 1].flatMap((i) => at.get(`${item.meeting.id}#${i}`) ?? []);
      const contextStems = [...neighbours.flatMap((n) => n.matched), ...titleMatches(item.meeting)].filter(
        (stem) => !matched.includes(stem),
      );
      const ownWeight = weightOf(matched);
      const contextWeight = weightOf(new Set(contextStems));
      return {
        item,
        score: score + CONTEXT_WEIGHT * (neighbours.reduce((sum, n) => sum + n.score, 0) + weightOf(titleMatches(item.meeting))),
        ownCoverage: ownWeight / totalWeight,
        coverage: (ownWeight + CONTEXT_WEIGHT * contextWeight) / totalWeight,
        matched,
      };
    })
    .sort((a, b) => b.score - a.score);
}

/** A passage relevant enough to be cited: with its context it holds half of what the question weighs, and a quarter on its own. */
export function isRelevant(passage: Ranked<unknown>): boolean {
  return passage.coverage >= MIN_CONTEXT_COVERAGE && passage.ownCoverage >= MIN_OWN_COVERAGE;
}
