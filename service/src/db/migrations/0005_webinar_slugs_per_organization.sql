-- Webinar slugs are unique per organization, not across the service (another organization's slug
-- answered 409 "already taken" on create and 404 on read). SQLite cannot drop a column's UNIQUE, so
-- the table is rebuilt (the migration runner turns foreign keys off and checks them before commit).
CREATE TABLE meetings_per_org_slugs (
  id                 TEXT PRIMARY KEY,
  organization_id    TEXT NOT NULL REFERENCES organizations (id),
  code               TEXT NOT NULL UNIQUE,
  title              TEXT NOT NULL,
  kind               TEXT NOT NULL CHECK (kind IN ('meeting', 'webinar')),
  slug               TEXT,
  -- scheduled_at keeps the offset the client sent; scheduled_at_ms is the instant, for ordering.
  scheduled_at       TEXT NOT NULL,
  scheduled_at_ms    INTEGER NOT NULL,
  duration_minutes   INTEGER NOT NULL,
  waiting_room       INTEGER NOT NULL,
  transcription_auto INTEGER NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('scheduled', 'live', 'ended', 'cancelled')),
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  started_at         TEXT,
  ended_at           TEXT,
  CHECK ((kind = 'webinar') = (slug IS NOT NULL)),
  UNIQUE (organization_id, slug)
) STRICT;

INSERT INTO meetings_per_org_slugs SELECT * FROM meetings;
DROP TABLE meetings;
ALTER TABLE meetings_per_org_slugs RENAME TO meetings;
CREATE INDEX meetings_by_org ON meetings (organization_id, id);
CREATE INDEX meetings_by_org_status ON meetings (organization_id, status, id);
