-- Dashboard sign-in: sessions (only a SHA-256 of the cookie's token is stored), the one-time sign-in
-- links already used (by their token id, until they expire), and an optional scrypt password per user.
CREATE TABLE dashboard_sessions (
  id           TEXT PRIMARY KEY,
  token_hash   BLOB NOT NULL UNIQUE,
  user_id      TEXT NOT NULL REFERENCES users (id),
  method       TEXT NOT NULL CHECK (method IN ('link', 'password')),
  created_at   TEXT NOT NULL,
  expires_at   INTEGER NOT NULL,
  revoked_at   TEXT
) STRICT;
CREATE INDEX dashboard_sessions_by_user ON dashboard_sessions (user_id, id);

CREATE TABLE dashboard_used_links (
  link_id    TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) STRICT;

ALTER TABLE users ADD COLUMN password_hash TEXT;

-- When a key last authenticated a request (kept to the minute, so a busy key writes once a minute).
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
