-- Breakout rooms a host opens in a meeting: one set at a time (draft -> open -> closing -> closed), each
-- room with the people assigned to it (by identity, so a reconnect keeps the assignment). closes_at is when
-- a closing set sends everyone back to the main room; timer_ends_at is the host's timer.
CREATE TABLE breakout_rooms (
  id             TEXT PRIMARY KEY,
  meeting_id     TEXT NOT NULL REFERENCES meetings (id),
  name           TEXT NOT NULL,
  position       INTEGER NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('draft', 'open', 'closing', 'closed')),
  created_at     TEXT NOT NULL,
  opened_at      TEXT,
  closes_at      TEXT,
  closed_at      TEXT,
  timer_ends_at  TEXT
) STRICT;
CREATE INDEX breakout_rooms_by_meeting ON breakout_rooms (meeting_id, status);

CREATE TABLE breakout_assignments (
  breakout_room_id  TEXT NOT NULL REFERENCES breakout_rooms (id),
  identity          TEXT NOT NULL,
  participant_id    TEXT NOT NULL REFERENCES participants (id),
  name              TEXT NOT NULL,
  PRIMARY KEY (breakout_room_id, identity)
) STRICT;
