-- Whose microphone each audio track of a recording carries, in the file's audio track order: a JSON array of
-- {participant_id, name} (null for a spare track nobody used), so transcripts name their speakers. NULL for
-- recordings made before this column, and for files that did not come from the room recorder.
ALTER TABLE recordings ADD COLUMN audio_track_owners TEXT;

-- Search hits name the participant who said or wrote them, as transcript segments and chat messages do. An FTS5
-- table cannot gain a column: the index is rebuilt with one, keeping every entry's rowid (newer entries have higher
-- rowids) and filling it from the chat messages and the stored transcripts.
CREATE VIRTUAL TABLE search_index_next USING fts5(
  text,
  organization_id UNINDEXED,
  meeting_id UNINDEXED,
  source UNINDEXED,
  ref UNINDEXED,
  speaker UNINDEXED,
  start_seconds UNINDEXED,
  at UNINDEXED,
  participant_id UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO search_index_next (rowid, text, organization_id, meeting_id, source, ref, speaker, start_seconds, at, participant_id)
SELECT s.rowid, s.text, s.organization_id, s.meeting_id, s.source, s.ref, s.speaker, s.start_seconds, s.at,
  CASE s.source
    WHEN 'chat' THEN (SELECT c.participant_id FROM chat_messages c WHERE c.id = s.ref)
    ELSE (SELECT json_extract(t.segments, '$[' || s.ref || '].participant_id') FROM transcripts t WHERE t.meeting_id = s.meeting_id)
  END
FROM search_index s;

DROP TABLE search_index;
ALTER TABLE search_index_next RENAME TO search_index;
