-- Chat notifications per organization: Slack (bot token + channel) or Teams (Workflows webhook URL).
-- The token or URL is stored encrypted; secret_hint is what the API may show of it.
CREATE TABLE integrations (
  id                TEXT PRIMARY KEY,
  organization_id   TEXT NOT NULL REFERENCES organizations (id),
  kind              TEXT NOT NULL CHECK (kind IN ('slack', 'teams')),
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
CREATE INDEX integrations_by_org ON integrations (organization_id, id);
