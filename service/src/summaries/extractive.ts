import type { TranscriptSegment } from '../transcripts/transcripts.repo';
import { splitClauses, type Clause } from './clauses';
import { actionOwner, actionText, dueDate, isDecision, nameForms } from './cues';
import type { Summary } from './summaries.repo';

export { dueDate };

/** What a summarizer reads: the transcript's segments, who took part, and when the meeting was (for "by Friday"). */
export interface SummaryInput {
  segments: TranscriptSegment[];
  /** Names of the participants (and the transcript's speakers), matched as action item owners. */
  participants: string[];
  /** ISO timestamp the meeting started (or was scheduled); relative due dates resolve against its UTC date. */
  meetingDate: string;
}

/** A summary before it is stored. */
export type SummaryDraft = Pick<Summary, 'tldr' | 'decisions' | 'action_items'>;

/** Clauses the TL;DR has at most (each written as a sentence). */
const TLDR_SENTENCES = 3;
/** Most words in the TL;DR (and at most half the transcript's), and in one of its sentences (a longer clause is cut with an ellipsis). */
const TLDR_WORDS = 60;
const TLDR_SENTENCE_WORDS = 25;
const STOP_WORDS = new Set(
  `a an the and or but if so of to in on at by for with from as is are was were be been being it its this that these those there
  here i you he she we they me him her us them my your his our their what which who whom whose when where why how all any both each
  few more most other some such no nor not only own same than too very can will just do does did doing have has had having would
  should could shall may might must about above after again against before below between into through during out over under up
  down off once then also well yeah okay ok um uh like right yes get got going go let lets let's i'm we're you're it's that's
  thanks thank everyone morning afternoon evening hello hi bye goodbye joining see`.split(/\s+/),
);

/**
 * The default summarizer, fully offline. It splits the transcript into clauses (sentences, and pieces of
 * unpunctuated run-ons at pauses and cue words, see `splitClauses`); the TL;DR is the most central clauses (TF-IDF
 * cosine to the whole meeting, decisions first among equals, in spoken order), at most three sentences,
 * 60 words and half the transcript's words, never every clause; decisions and action items are clauses with cue phrases ("we decided",
 * "let's go with", "NAME will ... by DAY", "can you ..."). An action item's owner is the participant it assigns
 * the task to (or the speaker of "I will", or the other one of two asked "can you"), its due date a phrase like
 * "by Friday" or "tomorrow" resolved against the meeting date. Every item cites its segment and the clause's time.
 */
export function summarizeExtractive(input: SummaryInput): SummaryDraft {
  const speakers = [...new Set(input.segments.map((s) => s.speaker).filter((s): s is string => !!s))];
  const names = nameForms([...input.participants, ...speakers], STOP_WORDS);
  const clauses = splitClauses(
    input.segments,
    names.flatMap((n) => n.forms),
  ).map((c) => ({ ...c, terms: c.words.filter((t) => t.length > 1 && !STOP_WORDS.has(t)) }));
  const decisions: SummaryDraft['decisions'] = [];
  const actionItems: SummaryDraft['action_items'] = [];
  const decided = new Set<number>();
  clauses.forEach((clause, i) => {
    if (isDecision(clause)) {
      decided.add(i);
      const text = asSentence(actionText(clause.text));
      if (!decisions.some((d) => d.text === text)) decisions.push({ text, cite: [clause.segment], start_seconds: clause.start });
      return;
    }
    const due = dueDate(clause.text, input.meetingDate);
    const owner = actionOwner(clause, names, speakers, due);
    if (owner === undefined) return;
    const task = actionText(clause.text);
    // A cue without a task ("action item or ...", the task heard as the next clause) is no item.
    if (task.split(' ').length < 3) return;
    const text = asSentence(task);
    if (!actionItems.some((a) => a.text === text))
      actionItems.push({ text, owner, due, cite: [clause.segment], start_seconds: clause.start });
  });
  return { tldr: tldrOf(clauses, decided), decisions, action_items: actionItems };
}

/** The TL;DR: the most central clauses in spoken order, within the sentence and word limits, never all of them. */
function tldrOf(clauses: (Clause & { terms: string[] })[], decided: Set<number>): string {
  const scores = salience(clauses);
  // Small talk has few content words; a decision is what a reader of a TL;DR most wants to know.
  const ranked = clauses
    .map((c, i) => ({ c, i, score: scores[i]! * (c.terms.length >= 3 ? 1 : 0.1) * (decided.has(i) ? 3 : 1) }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const chosen: typeof ranked = [];
  const budget = Math.min(TLDR_WORDS, Math.ceil(clauses.reduce((n, c) => n + c.words.length, 0) / 2));
  let words = 0;
  for (const r of ranked) {
    if (chosen.length === TLDR_SENTENCES || (clauses.length > 1 && chosen.length === clauses.length - 1)) break;
    // A fragment ("after a long discussion") is no sentence of a TL;DR that has one already.
    if (r.c.terms.length < 3 && chosen.length > 0) continue;
    const length = Math.min(r.c.words.length, TLDR_SENTENCE_WORDS);
    if (words + length > budget && chosen.length > 0) continue;
    chosen.push(r);
    words += length;
  }
  return chosen
    .sort((a, b) => a.i - b.i)
    .map(({ c }) =>
      c.words.length > TLDR_SENTENCE_WORDS
        ? `${asSentence(c.words.slice(0, TLDR_SENTENCE_WORDS).join(' ')).slice(0, -1)}…`
        : asSentence(c.text),
    )
    .join(' ');
}

/** Each clause's TF-IDF cosine similarity to the centroid of all clauses (linear in the transcript's length). */
function salience(sentences: { terms: string[] }[]): number[] {
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of new Set(s.terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log((1 + sentences.length) / (1 + (df.get(t) ?? 0))) + 1;
  const vectors = sentences.map((s) => {
    const v = new Map<string, number>();
    for (const t of s.terms) v.set(t, (v.get(t) ?? 0) + idf(t));
    return v;
  });
  const centroid = new Map<string, number>();
  for (const v of vectors) for (const [t, w] of v) centroid.set(t, (centroid.get(t) ?? 0) + w);
  const norm = (v: Map<string, number>) => Math.sqrt([...v.values()].reduce((sum, w) => sum + w * w, 0)) || 1;
  const centroidNorm = norm(centroid);
  return vectors.map((v) => {
    let dot = 0;
    for (const [t, w] of v) dot += w * (centroid.get(t) ?? 0);
    return dot / (norm(v) * centroidNorm);
  });
}

function asSentence(text: string): string {
  const trimmed = text.trim();
  const capitalized = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalized) ? capitalized : `${capitalized}.`;
}
