-- The chat log of each meeting's room, readable later through the API (and searchable by the media
-- pipeline's index).
CREATE TABLE chat_messages (
  id              TEXT PRIMARY KEY,
  meeting_id      TEXT NOT NULL REFERENCES meetings (id),
  participant_id  TEXT NOT NULL REFERENCES participants (id),
  sender_name     TEXT NOT NULL,
  sender_identity TEXT NOT NULL,
  text            TEXT NOT NULL,
  sent_at         TEXT NOT NULL
) STRICT;
CREATE INDEX chat_messages_by_meeting ON chat_messages (meeting_id, id);

-- The empty-room sweep looks for live meetings whose participants have all left.
CREATE INDEX participants_open ON participants (meeting_id) WHERE left_at IS NULL;
