import type { Db } from '../db/connection';

/** Where a hit comes from: a transcript segment (`ref` is its index) or a chat message (`ref` is its id). */
export type SearchSource = 'transcript' | 'chat';

/** One entry of the index, as written. */
export interface SearchEntry {
  text: string;
  organization_id: string;
  meeting_id: string;
  source: SearchSource;
  ref: string;
  speaker: string | null;
  start_seconds: number | null;
  at: string;
}

/** A hit: the entry, its highlighted snippet and the meeting it is in. */
export interface SearchHitRow extends SearchEntry {
  snippet: string;
  meeting_code: string;
  meeting_title: string;
}

/** What a caller may search: its organizations, the sources its scopes allow, and optionally one meeting. */
export interface SearchScope {
  organizationIds: string[];
  sources: SearchSource[];
  meetingId: string | null;
}

/** The parameters of one search. */
export interface SearchQuery extends SearchScope {
  /** An FTS5 MATCH expression built by `matchExpression` or `anyTermExpression` (never raw user input). */
  match: string;
  limit: number;
  offset: number;
}

/** The rows of `search_index s` a scope (`@orgs`, `@sources`, `@meeting`) may see. */
const IN_SCOPE = `s.organization_id IN (SELECT value FROM json_each(@orgs))
        AND s.source IN (SELECT value FROM json_each(@sources))
        AND (@meeting IS NULL OR s.meeting_id = @meeting)`;

/** SQL access to the FTS5 search index. */
export class SearchRepo {
  private readonly insertStmt;
  private readonly deleteTranscriptStmt;
  private readonly searchStmt;
  private readonly countMatchesStmt;
  private readonly countAllStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO search_index (text, organization_id, meeting_id, source, ref, speaker, start_seconds, at)
      VALUES (@text, @organization_id, @meeting_id, @source, @ref, @speaker, @start_seconds, @at)`);
    this.deleteTranscriptStmt = db.prepare("DELETE FROM search_index WHERE meeting_id = ? AND source = 'transcript'");
    this.searchStmt = db.prepare<Record<string, unknown>, SearchHitRow>(`SELECT s.text, s.organization_id, s.meeting_id, s.source, s.ref,
        s.speaker, s.start_seconds, s.at, snippet(search_index, 0, '[', ']', '…', 16) AS snippet,
        m.code AS meeting_code, m.title AS meeting_title
      FROM search_index s JOIN meetings m ON m.id = s.meeting_id
      WHERE search_index MATCH @match
        AND ${IN_SCOPE}
      ORDER BY bm25(search_index), s.rowid
      LIMIT @limit OFFSET @offset`);
    this.countMatchesStmt = db
      .prepare<Record<string, unknown>, number>(`SELECT COUNT(*) FROM search_index s WHERE search_index MATCH @match AND ${IN_SCOPE}`)
      .pluck();
    this.countAllStmt = db.prepare<Record<string, unknown>, number>(`SELECT COUNT(*) FROM search_index s WHERE ${IN_SCOPE}`).pluck();
  }

  insert(entry: SearchEntry): void {
    this.insertStmt.run(entry);
  }

  /** Removes a meeting's transcript entries (before its new transcript is indexed). */
  deleteTranscript(meetingId: string): void {
    this.deleteTranscriptStmt.run(meetingId);
  }

  /** The best hits first (BM25), then in indexing order. */
  search(q: SearchQuery): SearchHitRow[] {
    return this.searchStmt.all({ match: q.match, ...scopeParams(q), limit: q.limit, offset: q.offset });
  }

  /** How many entries in scope match `match`, or (null) how many there are at all: the document frequencies of relevance ranking. */
  count(scope: SearchScope, match: string | null): number {
    return match === null ? this.countAllStmt.get(scopeParams(scope))! : this.countMatchesStmt.get({ match, ...scopeParams(scope) })!;
  }
}

function scopeParams(scope: SearchScope): { orgs: string; sources: string; meeting: string | null } {
  return { orgs: JSON.stringify(scope.organizationIds), sources: JSON.stringify(scope.sources), meeting: scope.meetingId };
}
