import type { SummaryDraft } from '../extractive';
import type { ExpectedItem, ScriptedMeeting } from './meetings';

/** Counts for precision and recall: items found that were expected, found in all, expected in all. */
export interface Tally {
  matched: number;
  found: number;
  expected: number;
}

/** How a summary of one meeting scored, per kind of item, with what went wrong (for the bench's report). */
export interface MeetingScore {
  decisions: Tally;
  actions: Tally;
  misses: string[];
}

/** Share of an expected item's content words a found item must contain (speech-to-text mishears some). */
const WORD_SHARE = 0.6;

/**
 * Scores a summary against a scripted meeting's expected items. A found decision matches an expected one when it
 * holds most of its words; a found action item must also name the expected owner and due day. Each expected item
 * matches at most one found item; found items that match none count against precision.
 */
export function scoreSummary(meeting: ScriptedMeeting, summary: SummaryDraft): MeetingScore {
  const misses: string[] = [];
  const decisions = tally(
    meeting.decisions,
    summary.decisions.map((d) => ({ text: d.text })),
    false,
    misses,
  );
  const actions = tally(meeting.actions, summary.action_items, true, misses);
  return { decisions, actions, misses };
}

function tally(
  expected: ExpectedItem[],
  found: { text: string; owner?: string | null; due?: string | null }[],
  checkOwnerAndDue: boolean,
  misses: string[],
): Tally {
  const used = new Set<number>();
  let matched = 0;
  for (const item of expected) {
    const at = found.findIndex((f, i) => !used.has(i) && holds(f.text, item.words));
    const hit = at >= 0 && (!checkOwnerAndDue || (found[at]!.owner === (item.owner ?? null) && found[at]!.due === (item.due ?? null)));
    if (at >= 0) used.add(at);
    if (hit) matched++;
    else if (at >= 0) {
      misses.push(
        `wrong owner/due for "${item.words}": ${JSON.stringify(found[at])} (expected ${item.owner ?? null}, ${item.due ?? null})`,
      );
    } else misses.push(`missed "${item.words}"`);
  }
  found.forEach((f, i) => {
    if (!used.has(i)) misses.push(`extra ${JSON.stringify(f)}`);
  });
  return { matched, found: found.length, expected: expected.length };
}

function holds(text: string, words: string): boolean {
  const have = new Set((text.toLowerCase().match(/[a-z0-9']+/g) ?? []).map(stem));
  const want = words.split(/\s+/).map(stem);
  return want.filter((w) => have.has(w)).length >= Math.ceil(want.length * WORD_SHARE);
}

/** A word without a plural or past-tense ending, so "flight" matches "flights" and "ordered" matches "order". */
function stem(word: string): string {
  return word.replace(/'s$/, '').replace(/(?<=\w{3})(ed|s)$/, '');
}

/** Adds tallies. */
export function addTallies(tallies: Tally[]): Tally {
  return tallies.reduce(
    (sum, t) => ({ matched: sum.matched + t.matched, found: sum.found + t.found, expected: sum.expected + t.expected }),
    {
      matched: 0,
      found: 0,
      expected: 0,
    },
  );
}

/** Precision (matched / found; 1 when nothing was found) and recall (matched / expected). */
export function precisionRecall(t: Tally): { precision: number; recall: number } {
  return { precision: t.found === 0 ? 1 : t.matched / t.found, recall: t.expected === 0 ? 1 : t.matched / t.expected };
}
