import type { TranscriptSegment } from '../transcripts/transcripts.repo';
import type { Summary } from './summaries.repo';

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

/** Sentences the TL;DR has at most. */
const TLDR_SENTENCES = 3;
const STOP_WORDS = new Set(
  `a an the and or but if so of to in on at by for with from as is are was were be been being it its this that these those there
  here i you he she we they me him her us them my your his our their what which who whom whose when where why how all any both each
  few more most other some such no nor not only own same than too very can will just do does did doing have has had having would
  should could shall may might must about above after again against before below between into through during out over under up
  down off once then also well yeah okay ok um uh like right yes get got going go let lets let's i'm we're you're it's that's
  thanks thank everyone morning afternoon evening hello hi bye goodbye joining see`.split(/\s+/),
);
const DECISION_CUE =
  /\b(we|we've|we have|team|everyone) (decided|agreed|chose|settled on)\b|\b(decided|agreed|decision is|final decision|we'll go with|we will go with|let's go with|going forward we)\b/i;
const ACTION_CUE =
  /\b(action items?|will|i'll|we'll|he'll|she'll|going to|needs? to|has to|have to|must|should|let's|follow up|take care of|is responsible for|owns?|by (monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next|the end|end of)|please)\b/i;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** One sentence of the transcript and the segment it came from. */
interface Sentence {
  text: string;
  segment: number;
  speaker: string | null;
  terms: string[];
}

/**
 * The default summarizer, fully offline: the TL;DR is the transcript's most central sentences (TF-IDF cosine
 * to the whole meeting, in spoken order); decisions and action items are sentences with cue phrases ("we
 * decided", "agreed", "will", "action item", "by Friday"); an action item's owner is a participant it names
 * (or the speaker of "I will"), its due date a phrase like "by Friday", "tomorrow" or an ISO date resolved
 * against the meeting date. Every item cites the transcript segment it came from.
 */
export function summarizeExtractive(input: SummaryInput): SummaryDraft {
  const sentences = splitSentences(input.segments);
  const scores = salience(sentences);
  const ranked = sentences
    // Small talk has few content words; a decision is what a reader of a TL;DR most wants to know.
    .map((s, i) => ({ s, i, score: scores[i]! * (s.terms.length >= 3 ? 1 : 0.3) * (DECISION_CUE.test(s.text) ? 1.5 : 1) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, TLDR_SENTENCES)
    .sort((a, b) => a.i - b.i);
  const tldr = ranked.map(({ s }) => asSentence(s.text)).join(' ');
  const decisions: SummaryDraft['decisions'] = [];
  const actionItems: SummaryDraft['action_items'] = [];
  const names = candidateNames(input.participants, input.segments);
  for (const s of sentences) {
    if (DECISION_CUE.test(s.text)) {
      if (!decisions.some((d) => d.text === asSentence(s.text))) decisions.push({ text: asSentence(s.text), cite: [s.segment] });
      continue;
    }
    if (!ACTION_CUE.test(s.text)) continue;
    const owner = ownerOf(s, names);
    const due = dueDate(s.text, input.meetingDate);
    // "will" alone is too common: an item needs someone to do it or a date to do it by, or an explicit cue.
    if (!owner && !due && !/\b(action items?|follow up|needs? to|has to|have to|must)\b/i.test(s.text)) continue;
    const text = asSentence(s.text.replace(/^\s*action items?\s*(is|:)?\s*/i, ''));
    if (!actionItems.some((a) => a.text === text)) actionItems.push({ text, owner, due, cite: [s.segment] });
  }
  return { tldr, decisions, action_items: actionItems };
}

function splitSentences(segments: TranscriptSegment[]): Sentence[] {
  return segments.flatMap((segment, index) =>
    segment.text
      .split(/(?<=[.!?])\s+/)
      .map((text) => text.trim())
      .filter((text) => text.length > 0)
      .map((text) => ({ text, segment: index, speaker: segment.speaker, terms: terms(text) })),
  );
}

function terms(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9']+/g) ?? []).filter((t) => t.length > 1 && !STOP_WORDS.has(t));
}

/** Each sentence's TF-IDF cosine similarity to the centroid of all sentences (linear in the transcript's length). */
function salience(sentences: Sentence[]): number[] {
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

/** Participant and speaker names, each with the lowercase forms that may appear in a transcript (full name, first name). */
function candidateNames(participants: string[], segments: TranscriptSegment[]): { name: string; forms: string[] }[] {
  const all = [...participants, ...segments.map((s) => s.speaker).filter((s): s is string => !!s)];
  const unique = [...new Set(all.map((n) => n.trim()).filter(Boolean))];
  return unique.map((name) => {
    const lower = name.toLowerCase();
    const first = lower.split(/\s+/)[0]!;
    return { name, forms: [...new Set([lower, first])].filter((f) => f.length > 1 && !STOP_WORDS.has(f)) };
  });
}

function ownerOf(s: Sentence, names: { name: string; forms: string[] }[]): string | null {
  const lower = s.text.toLowerCase();
  let best: { name: string; at: number } | null = null;
  for (const { name, forms } of names) {
    for (const form of forms) {
      const at = new RegExp(`\\b${escapeRegExp(form)}\\b`).exec(lower)?.index;
      if (at !== undefined && (best === null || at < best.at)) best = { name, at };
    }
  }
  if (best) return best.name;
  if (/\b(i will|i'll|i am going to|i'm going to|i can)\b/i.test(s.text) && s.speaker) return s.speaker;
  return null;
}

/** The due date (YYYY-MM-DD) a sentence names, resolved against the meeting date; null when it names none. */
export function dueDate(text: string, meetingDate: string): string | null {
  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(text);
  if (iso) return iso[0];
  const lower = text.toLowerCase();
  const base = new Date(`${meetingDate.slice(0, 10)}T00:00:00Z`);
  const plus = (days: number) => new Date(base.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  const weekday = /\b(by|on|before|until|due|this|next)\s+(next\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/.exec(
    lower,
  );
  if (weekday) {
    const target = WEEKDAYS.indexOf(weekday[3]!);
    let days = (target - base.getUTCDay() + 7) % 7 || 7;
    const next = weekday[1] === 'next' || weekday[2] !== undefined;
    // "next Monday" said in a week that still has a Monday ahead means the Monday of the following week.
    if (next && base.getUTCDay() !== 0 && (target === 0 || target > base.getUTCDay())) days += 7;
    return plus(days);
  }
  if (/\b(by|before|until)?\s*tomorrow\b/.test(lower)) return plus(1);
  if (/\b(by|before) (the )?end of (the )?day\b|\b(by|before) tonight\b/.test(lower)) return plus(0);
  if (/\b(by|before) (the )?end of (the |this )?week\b/.test(lower)) return plus((5 - base.getUTCDay() + 7) % 7);
  if (/\bnext week\b/.test(lower)) return plus((1 - base.getUTCDay() + 7) % 7 || 7);
  if (/\b(by|before) (the )?end of (the |this )?month\b/.test(lower)) {
    return new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
  }
  return null;
}

function asSentence(text: string): string {
  const trimmed = text.trim();
  const capitalized = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalized) ? capitalized : `${capitalized}.`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
