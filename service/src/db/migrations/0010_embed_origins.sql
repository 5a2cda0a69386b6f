-- The parent origins that may frame a meeting's embedded room (a JSON array of normalized entries);
-- no row, or an empty array, means nothing can embed it.
CREATE TABLE embed_origins (
  meeting_id TEXT PRIMARY KEY REFERENCES meetings (id),
  origins    TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
