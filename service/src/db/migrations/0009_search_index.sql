-- Full-text search over what was said (transcript segments) and written (chat) in meetings. The text is
-- the only indexed column; the rest locates a hit. unicode61 with diacritics removed matches "cafe" to
-- "café".
CREATE VIRTUAL TABLE search_index USING fts5(
  text,
  organization_id UNINDEXED,
  meeting_id UNINDEXED,
  source UNINDEXED,
  ref UNINDEXED,
  speaker UNINDEXED,
  start_seconds UNINDEXED,
  at UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO search_index (text, organization_id, meeting_id, source, ref, speaker, start_seconds, at)
SELECT c.text, m.organization_id, c.meeting_id, 'chat', c.id, c.sender_name, NULL, c.sent_at
FROM chat_messages c JOIN meetings m ON m.id = c.meeting_id;

INSERT INTO search_index (text, organization_id, meeting_id, source, ref, speaker, start_seconds, at)
SELECT json_extract(s.value, '$.text'), m.organization_id, t.meeting_id, 'transcript', CAST(s.key AS TEXT),
  json_extract(s.value, '$.speaker'), json_extract(s.value, '$.start'), t.updated_at
FROM transcripts t JOIN meetings m ON m.id = t.meeting_id, json_each(t.segments) s;
