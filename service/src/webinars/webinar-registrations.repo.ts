import type { Db } from '../db/connection';

/** Someone registered for a webinar, as stored. */
export interface RegistrationRow {
  id: string;
  meeting_id: string;
  email: string;
  email_normalized: string;
  name: string;
  created_at: string;
}

/** SQL access to the registrations table. */
export class RegistrationsRepo {
  private readonly insertStmt;
  private readonly byEmail;
  private readonly byId;
  private readonly listStmt;
  private readonly webinarsBySlug;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO registrations (id, meeting_id, email, email_normalized, name, created_at)
      VALUES (@id, @meeting_id, @email, @email_normalized, @name, @created_at)`);
    this.byEmail = db.prepare<[string, string], RegistrationRow>(
      'SELECT * FROM registrations WHERE meeting_id = ? AND email_normalized = ?',
    );
    this.byId = db.prepare<[string], RegistrationRow>('SELECT * FROM registrations WHERE id = ?');
    this.listStmt = db.prepare<[string, string | null, string | null, number], RegistrationRow>(
      'SELECT * FROM registrations WHERE meeting_id = ? AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?',
    );
    this.webinarsBySlug = db.prepare<[string], { id: string; organization_id: string }>(
      "SELECT id, organization_id FROM meetings WHERE kind = 'webinar' AND slug = ? ORDER BY organization_id",
    );
  }

  /** The webinars of every organization that use `slug` (slugs are unique per organization only). */
  webinarsWithSlug(slug: string): { id: string; organization_id: string }[] {
    return this.webinarsBySlug.all(slug);
  }

  /** Up to `limit` registrations of a webinar older than `after` (an id), newest first. */
  list(meetingId: string, after: string | null, limit: number): RegistrationRow[] {
    return this.listStmt.all(meetingId, after, after, limit);
  }

  /** Inserts a new registration. */
  insert(row: RegistrationRow): void {
    this.insertStmt.run(row);
  }

  /** The registration of a webinar for a normalized email address. */
  findByEmail(meetingId: string, emailNormalized: string): RegistrationRow | undefined {
    return this.byEmail.get(meetingId, emailNormalized);
  }

  /** The registration with this id. */
  findById(id: string): RegistrationRow | undefined {
    return this.byId.get(id);
  }
}
