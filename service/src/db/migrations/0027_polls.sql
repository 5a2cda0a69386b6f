-- Polls a host runs in a meeting's room: the question and its options, and each person's votes (kept by
-- identity so a person who reconnects changes their vote instead of voting again).
CREATE TABLE polls (
  id          TEXT PRIMARY KEY,
  meeting_id  TEXT NOT NULL REFERENCES meetings (id),
  question    TEXT NOT NULL,
  multiple    INTEGER NOT NULL CHECK (multiple IN (0, 1)),
  anonymous   INTEGER NOT NULL CHECK (anonymous IN (0, 1)),
  status      TEXT NOT NULL CHECK (status IN ('open', 'closed')),
  created_by  TEXT NOT NULL REFERENCES participants (id),
  created_at  TEXT NOT NULL,
  closed_at   TEXT
) STRICT;
CREATE INDEX polls_by_meeting ON polls (meeting_id, id);

CREATE TABLE poll_options (
  id        TEXT PRIMARY KEY,
  poll_id   TEXT NOT NULL REFERENCES polls (id),
  position  INTEGER NOT NULL,
  text      TEXT NOT NULL,
  UNIQUE (poll_id, position)
) STRICT;

CREATE TABLE poll_votes (
  poll_id         TEXT NOT NULL REFERENCES polls (id),
  option_id       TEXT NOT NULL REFERENCES poll_options (id),
  voter_identity  TEXT NOT NULL,
  participant_id  TEXT NOT NULL REFERENCES participants (id),
  voter_name      TEXT NOT NULL,
  voted_at        TEXT NOT NULL,
  PRIMARY KEY (poll_id, voter_identity, option_id)
) STRICT;
