-- Integrations of kind 'project' write events into the project database; deliveries may target them.
-- SQLite cannot change a CHECK constraint in place: both tables are rebuilt (copy, drop, rename).
CREATE TABLE integrations_new (
  id                TEXT PRIMARY KEY,
  organization_id   TEXT NOT NULL REFERENCES organizations (id),
  kind              TEXT NOT NULL CHECK (kind IN ('slack', 'teams', 'project')),
  events            TEXT NOT NULL,
  channel           TEXT,
  secret_encrypted  TEXT NOT NULL,
  secret_hint       TEXT NOT NULL,
  enabled           INTEGER NOT NULL,
  disabled_reason   TEXT,
  failing_since     INTEGER,
  last_error        TEXT,
  last_delivered_at TEXT,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  CHECK ((kind = 'slack') = (channel IS NOT NULL))
) STRICT;
INSERT INTO integrations_new SELECT * FROM integrations;
DROP TABLE integrations;
ALTER TABLE integrations_new RENAME TO integrations;
CREATE INDEX integrations_by_org ON integrations (organization_id, id);

CREATE TABLE deliveries_new (
  id               TEXT PRIMARY KEY,
  event_id         TEXT NOT NULL REFERENCES events (id),
  destination_kind TEXT NOT NULL CHECK (destination_kind IN ('webhook', 'slack', 'teams', 'project')),
  destination_id   TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempt_count    INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER,
  lease_until      INTEGER,
  created_at       TEXT NOT NULL,
  completed_at     TEXT,
  organization_id  TEXT NOT NULL DEFAULT ''
) STRICT;
INSERT INTO deliveries_new SELECT * FROM deliveries;
DROP TABLE deliveries;
ALTER TABLE deliveries_new RENAME TO deliveries;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_leased ON deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX deliveries_by_destination ON deliveries (destination_id, id);
CREATE INDEX deliveries_due_by_destination ON deliveries (destination_id, next_attempt_at) WHERE status = 'pending';
