-- Who a host removed from a meeting's room: they come back only through the waiting room, and only a
-- host's admit lets them in again. A person is known by each key their credential carries (identity,
-- webinar registration, embed token), so a new credential from the same link or token is still removed.
CREATE TABLE room_removals (
  meeting_id  TEXT NOT NULL REFERENCES meetings (id),
  removal_key TEXT NOT NULL,
  removed_at  TEXT NOT NULL,
  PRIMARY KEY (meeting_id, removal_key)
) STRICT;
