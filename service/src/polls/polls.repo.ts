import type { Db } from '../db/connection';
import type { PollStatus } from './polls.protocol';

/** A polls row. */
export interface PollRow {
  id: string;
  meeting_id: string;
  question: string;
  multiple: 0 | 1;
  anonymous: 0 | 1;
  status: PollStatus;
  created_by: string;
  created_at: string;
  closed_at: string | null;
}

/** A poll_options row. */
export interface PollOptionRow {
  id: string;
  poll_id: string;
  position: number;
  text: string;
}

/** A poll_votes row: one chosen option of one person. */
export interface PollVoteRow {
  poll_id: string;
  option_id: string;
  voter_identity: string;
  participant_id: string;
  voter_name: string;
  voted_at: string;
}

/** SQL access to polls, their options and votes. */
export class PollsRepo {
  private readonly insertPollStmt;
  private readonly insertOptionStmt;
  private readonly findStmt;
  private readonly byMeetingStmt;
  private readonly countStmt;
  private readonly optionsStmt;
  private readonly votesStmt;
  private readonly clearVotesStmt;
  private readonly insertVoteStmt;
  private readonly closeStmt;

  constructor(db: Db) {
    this.insertPollStmt =
      db.prepare(`INSERT INTO polls (id, meeting_id, question, multiple, anonymous, status, created_by, created_at, closed_at)
      VALUES (@id, @meeting_id, @question, @multiple, @anonymous, @status, @created_by, @created_at, @closed_at)`);
    this.insertOptionStmt = db.prepare('INSERT INTO poll_options (id, poll_id, position, text) VALUES (@id, @poll_id, @position, @text)');
    this.findStmt = db.prepare<[string], PollRow>('SELECT * FROM polls WHERE id = ?');
    this.byMeetingStmt = db.prepare<[string], PollRow>('SELECT * FROM polls WHERE meeting_id = ? ORDER BY id');
    this.countStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM polls WHERE meeting_id = ?');
    this.optionsStmt = db.prepare<[string], PollOptionRow>('SELECT * FROM poll_options WHERE poll_id = ? ORDER BY position');
    this.votesStmt = db.prepare<[string], PollVoteRow>('SELECT * FROM poll_votes WHERE poll_id = ? ORDER BY voted_at, voter_identity');
    this.clearVotesStmt = db.prepare('DELETE FROM poll_votes WHERE poll_id = ? AND voter_identity = ?');
    this.insertVoteStmt = db.prepare(`INSERT INTO poll_votes (poll_id, option_id, voter_identity, participant_id, voter_name, voted_at)
      VALUES (@poll_id, @option_id, @voter_identity, @participant_id, @voter_name, @voted_at)`);
    this.closeStmt = db.prepare("UPDATE polls SET status = 'closed', closed_at = ? WHERE id = ? AND status = 'open'");
  }

  insert(poll: PollRow, options: PollOptionRow[]): void {
    this.insertPollStmt.run(poll);
    for (const option of options) this.insertOptionStmt.run(option);
  }

  find(id: string): PollRow | undefined {
    return this.findStmt.get(id);
  }

  /** A meeting's polls, oldest first. */
  byMeeting(meetingId: string): PollRow[] {
    return this.byMeetingStmt.all(meetingId);
  }

  count(meetingId: string): number {
    return this.countStmt.get(meetingId)!.n;
  }

  options(pollId: string): PollOptionRow[] {
    return this.optionsStmt.all(pollId);
  }

  votes(pollId: string): PollVoteRow[] {
    return this.votesStmt.all(pollId);
  }

  /** Replaces one person's choice in a poll with `rows` (all for the same poll and identity). */
  replaceVote(pollId: string, identity: string, rows: PollVoteRow[]): void {
    this.clearVotesStmt.run(pollId, identity);
    for (const row of rows) this.insertVoteStmt.run(row);
  }

  /** Closes an open poll; false when it was closed already. */
  close(id: string, closedAt: string): boolean {
    return this.closeStmt.run(closedAt, id).changes === 1;
  }
}
