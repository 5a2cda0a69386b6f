import type { Principal } from '../identity/identity.service';
import type { LlmClient, LlmMessage } from '../llm/llm.client';
import { clockTime } from '../shared/clock';
import type { Logger } from '../shared/logger';
import type { Ranked } from './search.ranking';
import type { SearchHit, SearchService } from './search.service';
import { stemOf, wordsOf } from './search.terms';

/** A question about the meetings a principal can read. */
export interface AskRequest {
  question: string;
  /** Only this meeting (id or code). */
  meeting?: string;
  /** The most passages the answer draws on (default 3). */
  limit?: number;
}

/** A passage an answer cites as [number]: which meeting, where in it, who, and the full text. */
export interface Citation {
  number: number;
  meeting: { id: string; code: string; title: string };
  source: SearchHit['source'];
  speaker: string | null;
  /** The speaker's participant; null when unknown. */
  participant_id: string | null;
  /** Transcript passages: seconds from the start of the recording, and the segment's index in the transcript. */
  start_seconds: number | null;
  segment_index: number | null;
  /** Chat passages: the message's id. */
  chat_message_id: string | null;
  /** When the message was sent, or when the transcript was made. */
  at: string;
  text: string;
}

/** An answer: only sentences citing passages by [number], or (found: false, no citations) a plain statement that the meetings do not say. */
export interface Answer {
  question: string;
  found: boolean;
  answer: string;
  /** extractive: the cited passages quoted; llm: written by the configured model from the cited passages only. */
  generator: 'extractive' | 'llm';
  citations: Citation[];
}

/** Passages an answer draws on unless the caller says otherwise. */
export const DEFAULT_PASSAGES = 3;
/** The longest quote of one passage in an extractive answer; longer passages are quoted from their best sentence. */
const MAX_QUOTE = 300;
/** What the model is told: the numbered passages are all it may use, and every sentence must cite one. */
const SYSTEM_PROMPT = [
  "You answer questions about an organization's meetings using only the numbered passages from meeting transcripts and chat",
  'that the user gives you.',
  'Rules:',
  '1. Use only what the passages say; never add outside knowledge, assumptions or guesses.',
  '2. End every sentence with the number of the passage it comes from in square brackets, e.g. [2] or [1][3]. A sentence',
  'without a passage number is deleted.',
  '3. If the passages do not answer the question, reply with exactly NOT_FOUND and nothing else.',
  '4. Be brief (a few sentences) and answer in the language of the question.',
].join('\n');
/** A citation marker in a model's answer: [1], [1, 3]. */
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/**
 * Answers questions about meetings from their transcripts and chat (retrieval-augmented): the passages that
 * `SearchService.retrieve` finds are quoted with numbered citations, or, when an LLM endpoint is configured,
 * given to the model, whose answer keeps only the sentences citing them.
 */
export class AskService {
  constructor(
    private readonly search: SearchService,
    private readonly llm: LlmClient | undefined,
    private readonly logger: Logger,
  ) {}

  /** The answer to `request.question`, citing the passages it comes from; found: false when the meetings do not contain one. */
  async ask(principal: Principal, request: AskRequest): Promise<Answer> {
    const { question } = request;
    const passages = this.search.retrieve(principal, { question, meeting: request.meeting, limit: request.limit ?? DEFAULT_PASSAGES });
    if (passages.length === 0) return notFound(question, 'extractive');
    const citations = passages.map((passage, i) => citationOf(passage.item, i + 1));
    const written = this.llm && (await this.llmAnswer(this.llm, question, citations));
    return written || { question, found: true, answer: extractiveAnswer(passages, citations), generator: 'extractive', citations };
  }

  private async llmAnswer(llm: LlmClient, question: string, citations: Citation[]): Promise<Answer | null> {
    let reply: string;
    try {
      reply = await llm.complete(promptFor(question, citations));
    } catch (err) {
      this.logger.warn('ask: the LLM endpoint failed; answering with quotes', { error: (err as Error).message });
      return null;
    }
    if (/^\W*NOT_FOUND\W*$/.test(reply)) return notFound(question, 'llm');
    const kept = keepCitedSentences(reply, citations.length);
    if (!kept) {
      this.logger.warn('ask: the LLM answer cited no passage; answering with quotes');
      return null;
    }
    const cited = kept.numbers.map((n, i) => ({ ...citations[n - 1]!, number: i + 1 }));
    return { question, found: true, answer: kept.text, generator: 'llm', citations: cited };
  }
}

function notFound(question: string, generator: Answer['generator']): Answer {
  const answer =
    'The meetings do not contain an answer to this question: no transcript or chat passage that this API key can read is about it.';
  return { question, found: false, answer, generator, citations: [] };
}

function citationOf(hit: SearchHit, number: number): Citation {
  const { meeting, source, speaker, participant_id, start_seconds, segment_index, chat_message_id, at, text } = hit;
  return { number, meeting, source, speaker, participant_id, start_seconds, segment_index, chat_message_id, at, text };
}

/** Where and when a passage was said or written, for people and models: `"Title" (code) at 2:15` or `... in the chat at ...`. */
export function placeOf(passage: Pick<Citation, 'meeting' | 'start_seconds' | 'at'>): string {
  const where = `"${passage.meeting.title}" (${passage.meeting.code})`;
  if (passage.start_seconds === null) return `${where}, chat at ${passage.at.slice(0, 16).replace('T', ' ')} UTC`;
  return `${where} at ${clockTime(passage.start_seconds)}`;
}

/** One quoted sentence per passage: `Ann said in "Budget review" (abc-defg-hij) at 2:15: "..." [1]`. */
function extractiveAnswer(passages: Ranked<SearchHit>[], citations: Citation[]): string {
  return citations
    .map((citation, i) => {
      const verb = citation.source === 'chat' ? 'wrote' : 'said';
      const quote = quoteOf(citation.text, passages[i]!.matched);
      return `${unmarked(citation.speaker ?? 'Someone')} ${verb} in ${unmarked(placeOf(citation))}: "${unmarked(quote)}" [${citation.number}]`;
    })
    .join('\n');
}

/** Text from a meeting on one line with its square brackets made round, so quoted in an answer it can forge no citation marker and no line. */
export function unmarked(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\[/g, '(').replace(/\]/g, ')');
}

/** The passage, or for a long one its sentence with most of the question's words, marked with … where cut. */
function quoteOf(text: string, stems: string[]): string {
  const trimmed = text.trim();
  if (trimmed.length <= MAX_QUOTE) return trimmed;
  const sentences = trimmed.match(/[^.!?]+[.!?]*\s*/g) ?? [trimmed];
  const hits = (sentence: string) =>
    new Set(
      wordsOf(sentence)
        .map(stemOf)
        .filter((stem) => stems.includes(stem)),
    ).size;
  const best = sentences.reduce((a, b) => (hits(b) > hits(a) ? b : a)).trim();
  const quote = best.length > MAX_QUOTE ? `${best.slice(0, MAX_QUOTE - 1).trimEnd()}…` : best;
  return trimmed.startsWith(best) ? quote : `…${quote}`;
}

function promptFor(question: string, citations: Citation[]): LlmMessage[] {
  const passages = citations.map((c) => `[${c.number}] ${placeOf(c)}, ${c.speaker ?? 'unknown speaker'}: ${c.text}`);
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Question: ${question}\n\nPassages:\n${passages.join('\n')}` },
  ];
}

/**
 * A model's answer reduced to its cited sentences: markers naming no passage (outside 1..count) are removed,
 * sentences left without one are dropped, and the passages are renumbered 1, 2, ... in the order first cited.
 * Null when no sentence cites a passage.
 */
export function keepCitedSentences(reply: string, count: number): { text: string; numbers: number[] } | null {
  const numbers: number[] = [];
  const exists = (n: number) => Number.isInteger(n) && n >= 1 && n <= count;
  const renumber = (n: number) => {
    if (!numbers.includes(n)) numbers.push(n);
    return numbers.indexOf(n) + 1;
  };
  const lines = reply.split(/\n+/).map((line) =>
    sentencesOf(line)
      .filter((sentence) => [...sentence.matchAll(MARKER)].some((m) => m[1]!.split(',').map(Number).some(exists)))
      .map((sentence) =>
        sentence
          .replace(MARKER, (_, list: string) =>
            list
              .split(',')
              .map(Number)
              .filter(exists)
              .map((n) => `[${renumber(n)}]`)
              .join(''),
          )
          .replace(/\s+([.,;:!?])/g, '$1')
          .replace(/\s{2,}/g, ' ')
          .trim(),
      )
      .join(' '),
  );
  const text = lines.filter(Boolean).join('\n');
  return numbers.length > 0 ? { text, numbers } : null;
}

/** A line's sentences, with markers written after a sentence's full stop ("... 20%. [1]") kept with that sentence. */
function sentencesOf(line: string): string[] {
  const sentences: string[] = [];
  for (const piece of line.split(/(?<=[.!?])\s+/)) {
    const leading = /^((?:\[[\d\s,]+\]\s*)+)([\s\S]*)$/.exec(piece);
    if (leading && sentences.length > 0) {
      sentences[sentences.length - 1] += ` ${leading[1]!.trim()}`;
      if (leading[2]!.trim()) sentences.push(leading[2]!);
    } else if (piece.trim()) {
      sentences.push(piece);
    }
  }
  return sentences;
}
