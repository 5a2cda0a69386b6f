import type { Principal } from '../identity/identity.service';
import type { MeetingsService } from '../meetings/meetings.service';
import { AppError } from '../shared/errors';
import type { Page } from '../shared/paging';
import { bm25Scores, idf, isRelevant, rankPassages, type Ranked } from './search.ranking';
import type { SearchHitRow, SearchRepo, SearchScope, SearchSource } from './search.repo';
import { anyTermExpression, foldText, questionTerms, snippetOf, wordsOf } from './search.terms';

/** A chat message as the index takes it (rooms' ChatMessage is one). */
export interface IndexedChatMessage {
  id: string;
  meeting_id: string;
  participant_id: string | null;
  sender_name: string;
  text: string;
  sent_at: string;
}

/** A timed transcript segment as the index takes it (transcripts' TranscriptSegment is one). */
export interface IndexedSegment {
  start: number;
  speaker: string | null;
  participant_id: string | null;
  text: string;
}

/** One search result: where in which meeting, the matching text and a snippet with the matches in [brackets]. */
export interface SearchHit {
  meeting: { id: string; code: string; title: string };
  source: SearchSource;
  text: string;
  snippet: string;
  /** Who said or wrote it: their name then, and their participant (null when unknown). */
  speaker: string | null;
  participant_id: string | null;
  /** Transcript hits: seconds from the start of the recording, and the segment's index in the transcript. */
  start_seconds: number | null;
  segment_index: number | null;
  /** Chat hits: the message's id. */
  chat_message_id: string | null;
  /** When the message was sent, or when the transcript was made. */
  at: string;
}

/** What a caller asks for. */
export interface SearchRequest {
  q: string;
  /** Only this meeting (id or code). */
  meeting?: string;
  limit: number;
  /** The opaque cursor of the previous page. */
  cursor?: string;
}

/** What `retrieve` is asked: a question in plain words, optionally about one meeting, and how many passages to return at most. */
export interface RetrieveRequest {
  question: string;
  /** Only this meeting (id or code). */
  meeting?: string;
  limit: number;
}

/** Entries read per question (the best BM25 matches of any of its words) before they are ranked again on stems. */
const CANDIDATES = 200;
/** Passages scoring below this share of the best one are left out, so that a weak match does not ride along with a strong one. */
const RELATIVE_CUT = 0.5;

/** Words of a query that count; more are ignored so that a pasted paragraph cannot make one search expensive. */
const MAX_QUERY_WORDS = 16;

/**
 * How many of the newest matches in scope a search ranks. A query whose words are in more entries than this
 * (a word said in nearly every segment, like "the" or the team's name) ranks the newest ones, so that its cost
 * does not grow with the history; a more specific query ranks all its matches.
 */
export const RANKED_WINDOW = 500;

function queryWords(query: string): string[] {
  return (
    query
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu)
      ?.slice(0, MAX_QUERY_WORDS) ?? []
  );
}

/**
 * The query as an FTS5 MATCH expression that cannot be a syntax error: every word of the user's text
 * becomes a quoted string (all must occur), whatever punctuation or operators it contained; null when
 * it has no word at all.
 */
export function matchExpression(query: string): string | null {
  const words = queryWords(query);
  return words.length === 0 ? null : allWordsExpression(words);
}

function allWordsExpression(words: string[]): string {
  return words.map((word) => `"${word}"`).join(' ');
}

/** The full-text index of transcripts and chat: written as they are stored, searched per organization and scope. */
export class SearchService {
  constructor(
    private readonly repo: SearchRepo,
    private readonly meetings: MeetingsService,
  ) {}

  /** Indexes a chat message (call inside the transaction that stores it). */
  indexChat(message: IndexedChatMessage, organizationId: string): void {
    this.repo.insert({
      text: message.text,
      organization_id: organizationId,
      meeting_id: message.meeting_id,
      source: 'chat',
      ref: message.id,
      speaker: message.sender_name,
      participant_id: message.participant_id,
      start_seconds: null,
      at: message.sent_at,
    });
  }

  /** Replaces a meeting's transcript in the index (call inside the transaction that stores it). */
  indexTranscript(meetingId: string, organizationId: string, segments: IndexedSegment[], at: string): void {
    this.repo.deleteTranscript(meetingId);
    segments.forEach((segment, index) =>
      this.repo.insert({
        text: segment.text,
        organization_id: organizationId,
        meeting_id: meetingId,
        source: 'transcript',
        ref: String(index),
        speaker: segment.speaker ?? null,
        participant_id: segment.participant_id ?? null,
        start_seconds: segment.start,
        at,
      }),
    );
  }

  /**
   * The best matches of `q` (every word must occur) in what the principal may read: transcripts with
   * transcripts:read, chat with meetings:read too. Ranked by BM25 among the newest `RANKED_WINDOW` matches;
   * a word's weight comes from how many entries of the index contain it, counted up to the same number.
   */
  search(principal: Principal, request: SearchRequest): Page<SearchHit> {
    const asked = queryWords(request.q);
    if (asked.length === 0) throw AppError.invalid([{ param: 'q', message: 'must contain at least one word' }]);
    const scope = this.scopeOf(principal, request.meeting);
    const offset = request.cursor === undefined ? 0 : decodeOffset(request.cursor);
    const candidates = this.repo.newest(scope, allWordsExpression(asked), RANKED_WINDOW);
    const words = [...new Set(asked.map(foldText))];
    const scores = bm25Scores(
      candidates.map((c) => wordsOf(c.text)),
      this.weighted(words),
      (token, term) => token === term,
    );
    const page = candidates
      .map((entry, i) => ({ entry, score: scores[i]! }))
      .sort((a, b) => b.score - a.score || a.entry.rowid - b.entry.rowid)
      .slice(offset, offset + request.limit + 1);
    const hasMore = page.length > request.limit;
    const shown = page.slice(0, request.limit).map((p) => p.entry);
    const meetings = this.repo.meetingLabels([...new Set(shown.map((entry) => entry.meeting_id))]);
    return {
      data: shown.map((entry) => {
        const meeting = meetings.get(entry.meeting_id)!;
        return hitOf({ ...entry, snippet: snippetOf(entry.text, words), meeting_code: meeting.code, meeting_title: meeting.title });
      }),
      has_more: hasMore,
      next_cursor: hasMore ? Buffer.from(`o:${offset + request.limit}`).toString('base64url') : null,
    };
  }

  /**
   * The passages that best answer `question`, best first, in the same scope as `search`: any of its content words
   * (stop words dropped, every form of each word) finds candidates, which are ranked again on stems; only the
   * relevant ones are returned, none when nothing in scope is about the question.
   */
  retrieve(principal: Principal, request: RetrieveRequest): Ranked<SearchHit>[] {
    if (!matchExpression(request.question)) throw AppError.invalid([{ param: 'question', message: 'must contain at least one word' }]);
    const scope = this.scopeOf(principal, request.meeting);
    const stems = questionTerms(request.question);
    if (stems.length === 0) return [];
    const rows = this.repo.best({ match: anyTermExpression(stems), ...scope, limit: CANDIDATES, offset: 0 });
    if (rows.length === 0) return [];
    const containing = new Map(stems.map((stem) => [stem, this.repo.count(scope, anyTermExpression([stem]))]));
    const relevant = rankPassages(rows.map(hitOf), stems, { total: this.repo.count(scope, null), containing }).filter(isRelevant);
    const best = relevant[0]?.score ?? 0;
    return relevant.filter((p) => p.score >= best * RELATIVE_CUT).slice(0, request.limit);
  }

  /** The words with their BM25 weights (one word's weight orders nothing, so it is not counted). */
  private weighted(words: string[]): { term: string; weight: number }[] {
    if (words.length === 1) return [{ term: words[0]!, weight: 1 }];
    const size = this.repo.sizeEstimate();
    return words.map((word) => ({ term: word, weight: idf(this.repo.countUpTo(`"${word}"`, RANKED_WINDOW), size) }));
  }

  private scopeOf(principal: Principal, meeting: string | undefined): SearchScope {
    const sources: SearchSource[] = ['transcript'];
    if (principal.key.scopes.includes('meetings:read')) sources.push('chat');
    const meetingId = meeting === undefined ? null : this.meetings.find(principal, meeting).id;
    return { organizationIds: principal.organizationIds, sources, meetingId };
  }
}

function hitOf(row: SearchHitRow): SearchHit {
  const transcript = row.source === 'transcript';
  return {
    meeting: { id: row.meeting_id, code: row.meeting_code, title: row.meeting_title },
    source: row.source,
    text: row.text,
    snippet: row.snippet,
    speaker: row.speaker,
    participant_id: row.participant_id,
    start_seconds: transcript ? row.start_seconds : null,
    segment_index: transcript ? Number(row.ref) : null,
    chat_message_id: transcript ? null : row.ref,
    at: row.at,
  };
}

function decodeOffset(cursor: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw AppError.invalid([{ param: 'cursor', message: 'is not a cursor this API returned' }]);
  return Number(match[1]);
}
