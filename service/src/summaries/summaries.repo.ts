import type { Db } from '../db/connection';

/** Transcript segments a summary item was drawn from, by index. */
export type Cite = number[];

/**
 * A meeting's summary. `speakers` of an item: who said the segments it cites (names, each once); [] when unknown.
 * `start_seconds`: when it was said, seconds from the start of the recording; null when unknown.
 */
export interface Summary {
  meeting_id: string;
  tldr: string;
  decisions: { text: string; cite: Cite; speakers?: string[]; start_seconds?: number | null }[];
  action_items: {
    text: string;
    owner: string | null;
    due: string | null;
    cite: Cite;
    speakers?: string[];
    start_seconds?: number | null;
  }[];
  generator: 'extractive' | 'llm';
  created_at: string;
}

type StoredSummary = Omit<Summary, 'decisions' | 'action_items'> & { decisions: string; action_items: string };

/** SQL access to the summaries table (one summary per meeting). */
export class SummariesRepo {
  private readonly upsertStmt;
  private readonly byMeeting;
  private readonly inOrganizations;

  constructor(db: Db) {
    this.upsertStmt = db.prepare(`INSERT INTO summaries (meeting_id, tldr, decisions, action_items, generator, created_at)
      VALUES (@meeting_id, @tldr, @decisions, @action_items, @generator, @created_at)
      ON CONFLICT (meeting_id) DO UPDATE SET tldr = excluded.tldr, decisions = excluded.decisions,
        action_items = excluded.action_items, generator = excluded.generator, created_at = excluded.created_at`);
    this.byMeeting = db.prepare<[string], StoredSummary>('SELECT * FROM summaries WHERE meeting_id = ?');
    this.inOrganizations = db.prepare<[string, string, number], StoredSummary>(`SELECT s.* FROM summaries s
      JOIN meetings m ON m.id = s.meeting_id
      WHERE m.organization_id IN (SELECT value FROM json_each(?)) AND s.meeting_id < ?
      ORDER BY s.meeting_id DESC LIMIT ?`);
  }

  save(summary: Summary): void {
    this.upsertStmt.run({
      ...summary,
      decisions: JSON.stringify(summary.decisions),
      action_items: JSON.stringify(summary.action_items),
    });
  }

  find(meetingId: string): Summary | undefined {
    const row = this.byMeeting.get(meetingId);
    return row && parse(row);
  }

  /** Up to `limit` summaries of meetings in `orgIds` with meeting ids below `before` (all when null), newest meeting first. */
  list(orgIds: string[], before: string | null, limit: number): Summary[] {
    return this.inOrganizations.all(JSON.stringify(orgIds), before ?? '~', limit).map(parse);
  }
}

function parse(row: StoredSummary): Summary {
  return {
    ...row,
    // Summaries stored before items named their speakers and times have none.
    decisions: (JSON.parse(row.decisions) as Summary['decisions']).map((d) => ({
      ...d,
      speakers: d.speakers ?? [],
      start_seconds: d.start_seconds ?? null,
    })),
    action_items: (JSON.parse(row.action_items) as Summary['action_items']).map((a) => ({
      ...a,
      speakers: a.speakers ?? [],
      start_seconds: a.start_seconds ?? null,
    })),
  };
}
