-- Identity: users belong to organizations; API keys belong to a user and may be restricted to one
-- of that user's organizations.
CREATE TABLE users (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  email      TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE organizations (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE memberships (
  user_id         TEXT NOT NULL REFERENCES users (id),
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  role            TEXT NOT NULL CHECK (role IN ('owner', 'member')),
  created_at      TEXT NOT NULL,
  PRIMARY KEY (user_id, organization_id)
) STRICT;

-- Only a SHA-256 of the key's secret part is stored; `lookup` is the non-secret part that finds
-- the row before the hash is compared in constant time.
CREATE TABLE api_keys (
  id                    TEXT PRIMARY KEY,
  user_id               TEXT NOT NULL REFERENCES users (id),
  organization_id       TEXT REFERENCES organizations (id),
  name                  TEXT NOT NULL,
  lookup                TEXT NOT NULL UNIQUE,
  secret_hash           BLOB NOT NULL,
  scopes                TEXT NOT NULL,
  rate_limit_per_second INTEGER,
  rate_limit_per_minute INTEGER,
  expires_at            TEXT,
  revoked_at            TEXT,
  created_at            TEXT NOT NULL
) STRICT;

CREATE TABLE meetings (
  id                 TEXT PRIMARY KEY,
  organization_id    TEXT NOT NULL REFERENCES organizations (id),
  code               TEXT NOT NULL UNIQUE,
  title              TEXT NOT NULL,
  kind               TEXT NOT NULL CHECK (kind IN ('meeting', 'webinar')),
  slug               TEXT UNIQUE,
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
  CHECK ((kind = 'webinar') = (slug IS NOT NULL))
) STRICT;
CREATE INDEX meetings_by_org ON meetings (organization_id, id);
CREATE INDEX meetings_by_org_status ON meetings (organization_id, status, id);

CREATE TABLE participants (
  id         TEXT PRIMARY KEY,
  meeting_id TEXT NOT NULL REFERENCES meetings (id),
  name       TEXT NOT NULL,
  role       TEXT NOT NULL CHECK (role IN ('host', 'guest')),
  identity   TEXT NOT NULL,
  joined_at  TEXT NOT NULL,
  left_at    TEXT
) STRICT;
CREATE INDEX participants_by_meeting ON participants (meeting_id, id);

CREATE TABLE recordings (
  id               TEXT PRIMARY KEY,
  meeting_id       TEXT NOT NULL REFERENCES meetings (id),
  kind             TEXT NOT NULL CHECK (kind IN ('video', 'audio')),
  status           TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  duration_seconds INTEGER,
  file_name        TEXT,
  content_type     TEXT,
  size_bytes       INTEGER,
  created_at       TEXT NOT NULL,
  ready_at         TEXT
) STRICT;
CREATE INDEX recordings_by_meeting ON recordings (meeting_id, id);

CREATE TABLE transcripts (
  meeting_id TEXT PRIMARY KEY REFERENCES meetings (id),
  language   TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  text       TEXT NOT NULL,
  segments   TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE summaries (
  meeting_id   TEXT PRIMARY KEY REFERENCES meetings (id),
  tldr         TEXT NOT NULL,
  decisions    TEXT NOT NULL,
  action_items TEXT NOT NULL,
  generator    TEXT NOT NULL CHECK (generator IN ('extractive', 'llm')),
  created_at   TEXT NOT NULL
) STRICT;

CREATE TABLE registrations (
  id               TEXT PRIMARY KEY,
  meeting_id       TEXT NOT NULL REFERENCES meetings (id),
  email            TEXT NOT NULL,
  email_normalized TEXT NOT NULL,
  name             TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  UNIQUE (meeting_id, email_normalized)
) STRICT;

-- A replayable answer per (key, Idempotency-Key), kept 24 hours.
CREATE TABLE idempotency_keys (
  api_key_id          TEXT NOT NULL REFERENCES api_keys (id),
  idempotency_key     TEXT NOT NULL,
  request_fingerprint TEXT NOT NULL,
  status_code         INTEGER NOT NULL,
  response_body       TEXT NOT NULL,
  created_at_ms       INTEGER NOT NULL,
  PRIMARY KEY (api_key_id, idempotency_key)
) STRICT;
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at_ms);
