-- Issue 27: a breakout room of a transcribed meeting is transcribed on its own. A transcript belongs to its meeting and,
-- for a breakout room's, to that room (breakout_room_id); the main room's has none and stays one per meeting. The
-- primary key cannot change in place: the table is rebuilt, every stored transcript becoming its meeting's main one.
CREATE TABLE transcripts_next (
  meeting_id       TEXT NOT NULL REFERENCES meetings (id),
  breakout_room_id TEXT,
  language         TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  text             TEXT NOT NULL,
  segments         TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
) STRICT;

INSERT INTO transcripts_next (meeting_id, breakout_room_id, language, status, text, segments, created_at, updated_at)
SELECT meeting_id, NULL, language, status, text, segments, created_at, updated_at FROM transcripts;

DROP TABLE transcripts;
ALTER TABLE transcripts_next RENAME TO transcripts;

-- One transcript per room: the main room's (no breakout room) and each breakout room's.
CREATE UNIQUE INDEX transcripts_by_room ON transcripts (meeting_id, ifnull(breakout_room_id, ''));
