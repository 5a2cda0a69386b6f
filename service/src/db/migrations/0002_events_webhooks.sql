-- The event log: one row per domain event, written in the same transaction as the change it
-- describes. Ids sort in creation order and are the feed cursor.
CREATE TABLE events (
  id              TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  type            TEXT NOT NULL,
  -- The webinar slug of registration.created events, for the feed's slug filter.
  slug            TEXT,
  payload         TEXT NOT NULL,
  created_at      TEXT NOT NULL
) STRICT;
CREATE INDEX events_by_org ON events (organization_id, id);
CREATE INDEX events_by_org_type ON events (organization_id, type, id);
CREATE INDEX events_by_org_slug ON events (organization_id, slug, id) WHERE slug IS NOT NULL;

-- Signing secrets are stored encrypted (AES-256-GCM with the server's master key).
CREATE TABLE webhook_endpoints (
  id                          TEXT PRIMARY KEY,
  organization_id             TEXT NOT NULL REFERENCES organizations (id),
  url                         TEXT NOT NULL,
  description                 TEXT NOT NULL,
  events                      TEXT NOT NULL,
  enabled                     INTEGER NOT NULL,
  disabled_reason             TEXT,
  secret_encrypted            TEXT NOT NULL,
  previous_secret_encrypted   TEXT,
  previous_secret_expires_at  INTEGER,
  failing_since               INTEGER,
  last_error                  TEXT,
  created_at                  TEXT NOT NULL,
  updated_at                  TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_endpoints_by_org ON webhook_endpoints (organization_id, id);

-- One row per (event, destination): stored before anything is sent. A destination is a webhook
-- endpoint or a chat integration. A claimed delivery holds a lease; a lease that ran out (the
-- process died mid-attempt) makes it due again. next_attempt_at is NULL while the destination is
-- disabled (the delivery is parked).
CREATE TABLE deliveries (
  id               TEXT PRIMARY KEY,
  event_id         TEXT NOT NULL REFERENCES events (id),
  destination_kind TEXT NOT NULL CHECK (destination_kind IN ('webhook', 'slack', 'teams')),
  destination_id   TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempt_count    INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER,
  lease_until      INTEGER,
  created_at       TEXT NOT NULL,
  completed_at     TEXT
) STRICT;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_leased ON deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX deliveries_by_destination ON deliveries (destination_id, id);

CREATE TABLE delivery_attempts (
  id              TEXT PRIMARY KEY,
  delivery_id     TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  number          INTEGER NOT NULL,
  started_at      TEXT NOT NULL,
  duration_ms     INTEGER NOT NULL,
  status_code     INTEGER,
  error           TEXT,
  response_body   TEXT,
  next_attempt_at TEXT,
  UNIQUE (delivery_id, number)
) STRICT;
