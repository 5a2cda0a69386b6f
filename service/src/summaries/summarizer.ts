import type { LlmClient } from '../llm/llm.client';
import type { Logger } from '../shared/logger';
import { summarizeExtractive, type SummaryDraft, type SummaryInput } from './extractive';
import type { Summary } from './summaries.repo';

/** A summary draft and what made it. */
export type GeneratedSummary = SummaryDraft & Pick<Summary, 'generator'>;

/** Longest transcript (characters of numbered segments) sent to the LLM; a longer one is summarized extractively. */
const MAX_PROMPT_CHARS = 48_000;

const SYSTEM_PROMPT = `You summarize meeting transcripts. The user sends the transcript as numbered segments "[n] speaker: text".
Answer with ONLY a JSON object: {"tldr": string (2-3 sentences), "decisions": [{"text": string, "cite": [segment numbers]}],
"action_items": [{"text": string, "owner": participant name or null, "due": "YYYY-MM-DD" or null, "cite": [segment numbers]}]}.
Every item must cite the segment numbers it comes from. Owners must be participants' names. Resolve relative dates against the meeting date.`;

/**
 * Summarizes transcripts: with an LLM endpoint configured, asks it for JSON whose every item cites segments that
 * exist (owners and dates checked too), and falls back to the extractive summary on any failure; without one,
 * extractive only.
 */
export class Summarizer {
  constructor(
    private readonly llm: LlmClient | undefined,
    private readonly logger: Logger,
  ) {}

  /** The summary of one transcript; never throws for an LLM failure. */
  async summarize(input: SummaryInput): Promise<GeneratedSummary> {
    if (this.llm && input.segments.length > 0) {
      const numbered = input.segments.map((s, i) => `[${i}] ${s.speaker ?? 'unknown'}: ${s.text}`).join('\n');
      if (numbered.length <= MAX_PROMPT_CHARS) {
        try {
          const answer = await this.llm.complete(
            [
              { role: 'system', content: SYSTEM_PROMPT },
              {
                role: 'user',
                content: `Meeting date: ${input.meetingDate.slice(0, 10)}\nParticipants: ${input.participants.join(', ') || 'unknown'}\n\n${numbered}`,
              },
            ],
            1200,
          );
          return { ...validateLlmSummary(answer, input.segments.length), generator: 'llm' };
        } catch (err) {
          this.logger.warn('LLM summary unusable; summarizing extractively', { error: (err as Error).message });
        }
      }
    }
    return { ...summarizeExtractive(input), generator: 'extractive' };
  }
}

/** Parses the LLM's answer (JSON, possibly in a code fence) and checks it cites only segments below `segmentCount`; throws otherwise. */
export function validateLlmSummary(answer: string, segmentCount: number): SummaryDraft {
  const json = /```(?:json)?\s*([\s\S]*?)```/.exec(answer)?.[1] ?? answer;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(json.trim()) as Record<string, unknown>;
  } catch {
    throw new Error('the LLM did not answer JSON');
  }
  const text = (v: unknown, what: string) => {
    if (typeof v !== 'string' || !v.trim()) throw new Error(`${what} is not a non-empty string`);
    return v.trim();
  };
  const cite = (v: unknown, what: string) => {
    if (!Array.isArray(v) || v.length === 0) throw new Error(`${what}.cite cites no segment`);
    for (const n of v) {
      if (!Number.isInteger(n) || (n as number) < 0 || (n as number) >= segmentCount)
        throw new Error(`${what}.cite names segment ${String(n)}, which does not exist`);
    }
    return [...new Set(v as number[])];
  };
  const list = (v: unknown, what: string) => {
    if (!Array.isArray(v)) throw new Error(`${what} is not a list`);
    return v as Record<string, unknown>[];
  };
  return {
    tldr: text(parsed.tldr, 'tldr'),
    decisions: list(parsed.decisions, 'decisions').map((d, i) => ({
      text: text(d.text, `decisions[${i}].text`),
      cite: cite(d.cite, `decisions[${i}]`),
    })),
    action_items: list(parsed.action_items, 'action_items').map((a, i) => {
      const what = `action_items[${i}]`;
      if (a.owner !== null && a.owner !== undefined && typeof a.owner !== 'string') throw new Error(`${what}.owner is not a name`);
      if (a.due !== null && a.due !== undefined && !(typeof a.due === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(a.due))) {
        throw new Error(`${what}.due is not a YYYY-MM-DD date`);
      }
      return {
        text: text(a.text, `${what}.text`),
        owner: (a.owner as string | null | undefined) || null,
        due: (a.due as string | null | undefined) ?? null,
        cite: cite(a.cite, what),
      };
    }),
  };
}
