-- "Add to Slack": the nonce of each OAuth state that completed an install, so a state is used at most once (a replayed
-- callback is refused). Rows older than a state's lifetime are pruned on each install.
CREATE TABLE slack_oauth_states_used (
  nonce TEXT PRIMARY KEY,
  used_at INTEGER NOT NULL
);

-- A Slack app installed without a channel (no incoming_webhook in Slack's answer) is stored disabled until the user
-- chooses one: a Slack integration may lack a channel only while disabled. SQLite cannot change a CHECK constraint in
-- place, so the table is rebuilt (copy, drop, rename); no foreign key points at it.
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
  CHECK (kind = 'slack' OR channel IS NULL),
  CHECK (kind <> 'slack' OR channel IS NOT NULL OR enabled = 0)
) STRICT;
INSERT INTO integrations_new SELECT * FROM integrations;
DROP TABLE integrations;
ALTER TABLE integrations_new RENAME TO integrations;
CREATE INDEX integrations_by_org ON integrations (organization_id, id);
