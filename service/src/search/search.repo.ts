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
  /** The participant who said or wrote it; null when unknown. */
  participant_id: string | null;
}

/** An entry found by a search, with its place in the index (newer entries have higher rowids). */
export interface SearchEntryRow extends SearchEntry {
  rowid: number;
}

/** A hit: the entry, its highlighted snippet (the matches in [brackets]) and the meeting it is in. */
export interface SearchHitRow extends SearchEntry {
  snippet: string;
  meeting_code: string;
  meeting_title: string;
}

/** What a hit shows of its meeting. */
export interface MeetingLabel {
  id: string;
  code: string;
  title: string;
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

const ENTRY_COLUMNS =
  's.rowid, s.text, s.organization_id, s.meeting_id, s.source, s.ref, s.speaker, s.start_seconds, s.at, s.participant_id';

/** SQL access to the FTS5 search index. */
export class SearchRepo {
  private readonly insertStmt;
  private readonly deleteTranscriptStmt;
  private readonly newestStmt;
  private readonly bestStmt;
  private readonly meetingsStmt;
  private readonly countMatchesStmt;
  private readonly countAllStmt;
  private readonly countUpToStmt;
  private readonly lastRowidStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO search_index (text, organization_id, meeting_id, source, ref, speaker, start_seconds, at,
      participant_id) VALUES (@text, @organization_id, @meeting_id, @source, @ref, @speaker, @start_seconds, @at, @participant_id)`);
    this.deleteTranscriptStmt = db.prepare("DELETE FROM search_index WHERE meeting_id = ? AND source = 'transcript'");
    // FTS5 walks a match backwards from its newest entry and stops at the limit (a rowid range would not: it filters every match).
    this.newestStmt = db.prepare<Record<string, unknown>, SearchEntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM search_index s WHERE search_index MATCH @match AND ${IN_SCOPE} ORDER BY s.rowid DESC LIMIT @limit`,
    );
    this.bestStmt = db.prepare<Record<string, unknown>, SearchHitRow>(`SELECT ${ENTRY_COLUMNS},
        snippet(search_index, 0, '[', ']', '…', 16) AS snippet, m.code AS meeting_code, m.title AS meeting_title
      FROM search_index s JOIN meetings m ON m.id = s.meeting_id
      WHERE search_index MATCH @match AND ${IN_SCOPE}
      ORDER BY bm25(search_index), s.rowid
      LIMIT @limit OFFSET @offset`);
    this.meetingsStmt = db.prepare<[string], MeetingLabel>(
      'SELECT id, code, title FROM meetings WHERE id IN (SELECT value FROM json_each(?))',
    );
    this.countMatchesStmt = db
      .prepare<Record<string, unknown>, number>(`SELECT COUNT(*) FROM search_index s WHERE search_index MATCH @match AND ${IN_SCOPE}`)
      .pluck();
    this.countAllStmt = db.prepare<Record<string, unknown>, number>(`SELECT COUNT(*) FROM search_index s WHERE ${IN_SCOPE}`).pluck();
    this.countUpToStmt = db
      .prepare<{ match: string; cap: number }, number>(
        'SELECT COUNT(*) FROM (SELECT rowid FROM search_index WHERE search_index MATCH @match ORDER BY rowid DESC LIMIT @cap)',
      )
      .pluck();
    this.lastRowidStmt = db.prepare<[], number>('SELECT rowid FROM search_index ORDER BY rowid DESC LIMIT 1').pluck();
  }

  insert(entry: SearchEntry): void {
    this.insertStmt.run(entry);
  }

  /** Removes a meeting's transcript entries (before its new transcript is indexed). */
  deleteTranscript(meetingId: string): void {
    this.deleteTranscriptStmt.run(meetingId);
  }

  /** The newest `limit` entries in scope that match `match`, newest first. */
  newest(scope: SearchScope, match: string, limit: number): SearchEntryRow[] {
    return this.newestStmt.all({ match, ...scopeParams(scope), limit });
  }

  /** The best BM25 matches in scope, then in indexing order; ranks every match, so it suits selective expressions. */
  best(q: SearchQuery): SearchHitRow[] {
    return this.bestStmt.all({ match: q.match, ...scopeParams(q), limit: q.limit, offset: q.offset });
  }

  /** The code and title of each of these meetings, by id. */
  meetingLabels(ids: string[]): Map<string, MeetingLabel> {
    return new Map(this.meetingsStmt.all(JSON.stringify(ids)).map((m) => [m.id, m]));
  }

  /** How many entries in scope match `match`, or (null) how many there are at all: the document frequencies of relevance ranking. */
  count(scope: SearchScope, match: string | null): number {
    return match === null ? this.countAllStmt.get(scopeParams(scope))! : this.countMatchesStmt.get({ match, ...scopeParams(scope) })!;
  }

  /**
   * How many entries of the whole index match `match`, counting no further than `cap`: from the index alone, so a
   * word in every entry costs no more than `cap` steps (document frequencies for ranking, as a search engine keeps them per index).
   */
  countUpTo(match: string, cap: number): number {
    return this.countUpToStmt.get({ match, cap })!;
  }

  /** An upper estimate of the entries in the whole index, in constant time (rowids only grow). */
  sizeEstimate(): number {
    return this.lastRowidStmt.get() ?? 0;
  }
}

function scopeParams(scope: SearchScope): { orgs: string; sources: string; meeting: string | null } {
  return { orgs: JSON.stringify(scope.organizationIds), sources: JSON.stringify(scope.sources), meeting: scope.meetingId };
}
