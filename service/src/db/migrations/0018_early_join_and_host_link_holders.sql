-- How many minutes before scheduled_at guests may join (hosts always may); before that the room page shows
-- the start time and waits. Existing meetings get the default.
ALTER TABLE meetings ADD COLUMN join_before_start_minutes INTEGER NOT NULL DEFAULT 10;

-- A host link belongs to the first browser that redeems it: that browser's secret, stored as its SHA-256.
-- link_id is the identity the signed link carries; the same browser may redeem the link again (reload,
-- reconnect), any other is refused.
CREATE TABLE host_link_holders (
  meeting_id  TEXT NOT NULL REFERENCES meetings (id),
  link_id     TEXT NOT NULL,
  holder_hash TEXT NOT NULL,
  bound_at    TEXT NOT NULL,
  PRIMARY KEY (meeting_id, link_id)
) STRICT;
