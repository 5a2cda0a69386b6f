import type { Clause } from './clauses';

/** A participant's name and the lowercase forms a transcript may use for it (full name, first name). */
export interface NameForms {
  name: string;
  forms: string[];
}

const DECISION_CUES = [
  /\b(we|we've|we have|the team|everyone|we all|all of us)( have| all)? (decided|agreed|chose|settled on|voted)\b/,
  /\b(decided|agreed) (to|that|on)\b/,
  /\b(we|all) agree (to|that|on)\b/,
  /\b(let's|lets|let us) (go|run|stick) (with|for|ahead)\b/,
  /\b(we'll|we will|we are|we're) (go|going|stick|sticking) (to go )?(with|for)\b/,
  /\b(we are|we're) going to go (with|for)\b/,
  /\b(the|our)( final)? decision (is|was|as)\b/,
  /\b(it's|it is) decided\b/,
  /\b(is|are|was|were|got|has been|have been) approved\b/,
  /^agreed\b/,
];
/** "NAME <modal> ..." assigns a task to NAME. */
const ASSIGNING =
  "(will|shall|is going to|'s going to|is gonna|can|could|should|needs to|need to|has to|must|is to|to|takes care of|owns|please|would you|can you|could you)";
const SELF = /\b(i will|i'll|i am going to|i'm going to|i can take|i'll take|let me|i will take)\b/;
const REQUEST = /\b(can you|could you|would you|will you|please)\b/;
const NOT_A_REQUEST = /\b(can|could) you (hear|see) (me|us)\b|\bwould you like\b/;
const EXPLICIT = /\b(action items?|follow up|needs? to|has to|have to|must|take care of|is responsible for)\b/;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Whether a clause states a decision ("we decided to ...", "let's go with ...", "the budget is approved"). */
export function isDecision(clause: Clause): boolean {
  return DECISION_CUES.some((cue) => cue.test(clause.text));
}

/** Owner of an action item, or undefined when the clause assigns no task. Null owner: a task with nobody named. */
export function actionOwner(clause: Clause, names: NameForms[], speakers: string[], due: string | null): string | null | undefined {
  const text = clause.text;
  for (const { name, forms } of names) {
    for (const form of forms) {
      if (new RegExp(`\\b${escapeRegExp(form)} ${ASSIGNING}\\b`).test(text)) return name;
      if (
        new RegExp(
          `\\b(action items? (is |for )?|assign(ed)? (it |this )?to |over to )${escapeRegExp(form)}\\b|\\bfor ${escapeRegExp(form)} to\\b`,
        ).test(text)
      )
        return name;
    }
  }
  if (SELF.test(text) && clause.speaker) return clause.speaker;
  if (REQUEST.test(text) && !NOT_A_REQUEST.test(text)) {
    const named = mentioned(text, names);
    if (named && named !== clause.speaker) return named;
    // Asked of "you" in a meeting of two: the other one.
    const others = speakers.filter((s) => s !== clause.speaker);
    return others.length === 1 ? others[0]! : null;
  }
  if (EXPLICIT.test(text)) return mentioned(text, names);
  if (due !== null && /\b(will|going to|should)\b/.test(text)) return mentioned(text, names);
  return undefined;
}

function mentioned(text: string, names: NameForms[]): string | null {
  let best: { name: string; at: number } | null = null;
  for (const { name, forms } of names) {
    for (const form of forms) {
      const at = new RegExp(`\\b${escapeRegExp(form)}\\b`).exec(text)?.index;
      if (at !== undefined && (best === null || at < best.at)) best = { name, at };
    }
  }
  return best?.name ?? null;
}

/** The due date (YYYY-MM-DD) a sentence names, resolved against the meeting date; null when it names none. */
export function dueDate(text: string, meetingDate: string): string | null {
  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(text);
  // Only a day that exists ("2026-02-30" is no date).
  if (iso && new Date(Date.UTC(+iso[1]!, +iso[2]! - 1, +iso[3]!)).toISOString().startsWith(iso[0])) return iso[0];
  const lower = text.toLowerCase();
  const base = new Date(`${meetingDate.slice(0, 10)}T00:00:00Z`);
  const plus = (days: number) => new Date(base.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  // Speech-to-text often hears "by" as "buy" or "bye".
  const weekday =
    /\b(by|buy|bye|on|before|until|due|this|next)?\s*(next\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/.exec(lower);
  if (weekday) {
    const target = WEEKDAYS.indexOf(weekday[3]!);
    let days = (target - base.getUTCDay() + 7) % 7 || 7;
    const next = weekday[1] === 'next' || weekday[2] !== undefined;
    // "next Monday" said in a week that still has a Monday ahead means the Monday of the following week.
    if (next && base.getUTCDay() !== 0 && (target === 0 || target > base.getUTCDay())) days += 7;
    return plus(days);
  }
  if (/\btomorrow\b/.test(lower)) return plus(1);
  if (/\b(by|before) (the )?end of (the )?day\b|\b(by|before) tonight\b|\btoday\b/.test(lower)) return plus(0);
  if (/\b(by|before) (the )?end of (the |this )?week\b/.test(lower)) return plus((5 - base.getUTCDay() + 7) % 7);
  if (/\bnext week\b/.test(lower)) return plus((1 - base.getUTCDay() + 7) % 7 || 7);
  if (/\b(by|before) (the )?end of (the |this )?month\b/.test(lower)) {
    return new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
  }
  return null;
}

/** An action item's text: the clause without its lead-in ("okay so", "action item for grace"). */
export function actionText(text: string): string {
  return text.replace(/^((and|so|then|okay|ok|also|alright|next|please)\s+)+/, '').replace(/^action items?\s*(is\s+|for\s+)?/, '');
}

/** Names of participants and speakers with the forms a transcript may use. */
export function nameForms(names: string[], stopWords: Set<string>): NameForms[] {
  const unique = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  return unique.map((name) => {
    const lower = name.toLowerCase();
    const first = lower.split(/\s+/)[0]!;
    return { name, forms: [...new Set([lower, first])].filter((f) => f.length > 1 && !stopWords.has(f)) };
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
