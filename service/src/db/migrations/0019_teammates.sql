-- Teammates. A user's role is theirs across the service (owner, admin or member; the users the service has made so far
-- were each its owner); memberships only say which organizations' meetings a user reaches (memberships.role keeps
-- saying who created the organization and grants nothing). A removed user keeps the row (their keys and sessions point
-- at it) but no membership, no password and no way in; an invitation accepted later for the same email brings it back.
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'admin', 'member'));
ALTER TABLE users ADD COLUMN removed_at TEXT;

-- An invitation: one-time, expiring; only a SHA-256 of its token is stored.
CREATE TABLE team_invites (
  id              TEXT PRIMARY KEY,
  token_hash      BLOB NOT NULL UNIQUE,
  email           TEXT NOT NULL,
  role            TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  invited_by      TEXT NOT NULL REFERENCES users (id),
  created_at      TEXT NOT NULL,
  -- Epoch ms after which the link is refused.
  expires_at      INTEGER NOT NULL,
  accepted_at     TEXT,
  accepted_by     TEXT REFERENCES users (id),
  revoked_at      TEXT
) STRICT;
CREATE INDEX team_invites_by_email ON team_invites (email COLLATE NOCASE, id);
