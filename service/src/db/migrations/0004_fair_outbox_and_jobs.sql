-- Deliveries carry their organization so the worker can share its pool fairly between organizations,
-- and are claimed per destination (round-robin), not oldest-first across everyone.
ALTER TABLE deliveries ADD COLUMN organization_id TEXT NOT NULL DEFAULT '';
UPDATE deliveries SET organization_id = (SELECT organization_id FROM events WHERE events.id = deliveries.event_id);
CREATE INDEX deliveries_due_by_destination ON deliveries (destination_id, next_attempt_at) WHERE status = 'pending';

-- Durable background jobs (transcription, summaries, ...): claimed with a lease, retried with back-off.
CREATE TABLE jobs (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  payload       TEXT NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_run_at   INTEGER,
  lease_until   INTEGER,
  last_error    TEXT,
  created_at    TEXT NOT NULL,
  completed_at  TEXT
) STRICT;
CREATE INDEX jobs_due ON jobs (next_run_at) WHERE status = 'pending';
CREATE INDEX jobs_leased ON jobs (lease_until) WHERE status = 'running';
