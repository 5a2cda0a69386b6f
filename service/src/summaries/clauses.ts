import type { TranscriptSegment } from '../transcripts/transcripts.repo';

/** One clause of the transcript: a sentence, or a piece of a run-on, with where and when it was said. */
export interface Clause {
  /** The clause's words as the transcript has them, without end punctuation. */
  text: string;
  /** Index of the transcript segment it comes from. */
  segment: number;
  speaker: string | null;
  /** Seconds from the start of the recording, interpolated by word position inside the segment. */
  start: number;
  /** Lowercase words, for matching. */
  words: string[];
}

/** Words that open a new clause in unpunctuated speech (discourse markers), matched at a word boundary. */
const OPENERS = [
  'so',
  'okay',
  'ok',
  'alright',
  'all right',
  'anyway',
  'also',
  'moving on',
  'thanks',
  'thank you',
  'action item',
  'action items',
  'after that',
  'one more thing',
];
/** Starts of a decision or a request: a new clause begins here when the words before it are a clause of their own. */
const STARTERS = [
  'we decided',
  'we have decided',
  "we've decided",
  'we agreed',
  'we all agreed',
  'we have agreed',
  "we've agreed",
  'the decision',
  'our decision',
  'the final decision',
  "let's",
  'lets',
  'let us',
  "we'll go",
  'we will go',
  "we're going with",
  'we are going with',
  'we are going to go',
  'i will',
  "i'll",
  'i am going to',
  "i'm going to",
  'can you',
  'could you',
  'would you',
  'please',
  'who can',
  'i think',
  'i guess',
  'i believe',
];
/** A day said at the end of a request or plan ("... by thursday") ends the clause unless one of these follows it. */
const DAYS = new Set(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'tomorrow', 'today', 'tonight']);
const DAY_CONTINUATIONS = new Set([
  'at',
  'morning',
  'afternoon',
  'evening',
  'night',
  'noon',
  'or',
  'latest',
  'before',
  'after',
  'next',
  'this',
  'week',
  'and',
]);
/** Verbs and modals that make "NAME <word>" the start of an assignment ("grace will ...", "henry can you ..."). */
const NAME_FOLLOWERS = new Set([
  'will',
  'is',
  'can',
  'could',
  'should',
  'needs',
  'need',
  'has',
  'must',
  'to',
  'takes',
  'owns',
  'please',
  'would',
  'shall',
]);
/** A cue right after one of these words continues the clause ("we think that we decided ..." stays whole). */
const BINDING = new Set([
  'that',
  'to',
  'the',
  'a',
  'an',
  'of',
  'for',
  'with',
  'if',
  'when',
  'because',
  'said',
  'asked',
  'think',
  'hope',
  'ask',
  'tell',
  'told',
  'what',
  'whether',
  'which',
  'who',
  'as',
  'than',
  'where',
  'why',
  'how',
  'by',
  'on',
  'in',
  'at',
  'until',
  'before',
  'after',
  'during',
  'from',
  'this',
  'is',
  'was',
  'are',
]);
/** Conjunctions that go with the clause they open ("... on friday and grace will ..."). */
const CONJUNCTIONS = new Set(['and', 'but', 'then', 'so']);
/** Shortest clause, in words, that stands on its own; shorter pieces join a neighbour. */
const MIN_WORDS = 3;

/**
 * Splits a transcript into clauses. Sentence punctuation ends a clause (engines that punctuate, and pocketsphinx's
 * longer pauses, which its parser writes as full stops); inside unpunctuated run-ons a clause also ends before a
 * discourse marker ("okay", "so", "action item"), the start of a decision or request ("we decided", "let's",
 * "can you") or a participant's name followed by a modal ("grace will"), unless the word before binds the cue to
 * what came before ("that", "to"); and after a day that ends a plan ("... by thursday the team ..."). A lone
 * name ("... tomorrow henry") stays with the clause it ends.
 */
export function splitClauses(segments: TranscriptSegment[], names: string[]): Clause[] {
  const nameForms = new Set(names.flatMap((n) => n.toLowerCase().split(/\s+/)).filter((n) => n.length > 1));
  const clauses: Clause[] = [];
  segments.forEach((segment, index) => {
    const tokens = segment.text.split(/\s+/).filter(Boolean);
    const perWord = tokens.length > 0 ? (segment.end - segment.start) / tokens.length : 0;
    let piece: { from: number; words: string[] } = { from: 0, words: [] };
    const pieces: (typeof piece)[] = [];
    tokens.forEach((token, i) => {
      const word = token.toLowerCase().replace(/[^a-z0-9']/g, '');
      if (word && piece.words.length > 0 && opensClause(tokens, i, nameForms)) {
        const carried = CONJUNCTIONS.has(piece.words.at(-1)!) ? piece.words.pop()! : null;
        pieces.push(piece);
        piece = { from: carried ? i - 1 : i, words: carried ? [carried] : [] };
      }
      if (word) piece.words.push(word);
      if (/[.!?;]$/.test(token)) {
        pieces.push(piece);
        piece = { from: i + 1, words: [] };
      }
    });
    pieces.push(piece);
    for (const p of mergeFragments(
      pieces.filter((p) => p.words.length > 0),
      nameForms,
    )) {
      clauses.push({
        text: p.words.join(' '),
        segment: index,
        speaker: segment.speaker,
        start: Math.round((segment.start + p.from * perWord) * 100) / 100,
        words: p.words,
      });
    }
  });
  return clauses;
}

function opensClause(tokens: string[], i: number, nameForms: Set<string>): boolean {
  const ahead = tokens
    .slice(i, i + 4)
    .map((t) => t.toLowerCase().replace(/[^a-z0-9']/g, ''))
    .join(' ');
  const before = tokens[i - 1]!.toLowerCase().replace(/[^a-z0-9']/g, '');
  if (DAYS.has(before) && !DAY_CONTINUATIONS.has(ahead.split(' ')[0]!)) return true;
  // "can you hear me" is a clause of its own, not the start of a request.
  if (i >= 2 && /^(hear|see) (me|us)$/.test(`${tokens[i - 2]!.toLowerCase()} ${before}`)) return true;
  if (BINDING.has(before)) return false;
  const startsWith = (phrase: string) => ahead === phrase || ahead.startsWith(`${phrase} `);
  if (OPENERS.some(startsWith) || STARTERS.some(startsWith)) return true;
  const [first, second] = ahead.split(' ');
  if (first && nameForms.has(first) && second !== undefined) {
    return NAME_FOLLOWERS.has(second) || second.endsWith("'ll");
  }
  return false;
}

/** Joins pieces too short to stand alone: a lone name (with "please"/"thanks") to the clause before, others to the clause after. */
function mergeFragments<P extends { from: number; words: string[] }>(pieces: P[], nameForms: Set<string>): P[] {
  const out: P[] = [];
  let pending: P | null = null;
  for (const piece of pieces) {
    const vocative = piece.words.every((w) => nameForms.has(w) || w === 'please' || w === 'thanks');
    if (vocative && out.length > 0 && pending === null) {
      out.at(-1)!.words.push(...piece.words);
      continue;
    }
    const current: P = pending ? { ...pending, words: [...pending.words, ...piece.words] } : piece;
    pending = null;
    if (current.words.length < MIN_WORDS) pending = current;
    else out.push(current);
  }
  if (pending) {
    if (out.length > 0) out.at(-1)!.words.push(...pending.words);
    else out.push(pending);
  }
  return out;
}
