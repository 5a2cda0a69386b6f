-- Issue 25: a meeting's recording is two recordings. `tracks` is the per-track file the room recorder makes (every
-- microphone, camera and screen share on its own track, with `tracks`: a JSON array of {kind, source, owner,
-- offset_seconds, end_seconds, stream}); `video` is now the composite MP4 anyone can play, rendered from it by the
-- `render_composite` job, with `source_recording_id` naming its tracks recording. The kind's CHECK cannot be altered:
-- the table is rebuilt. Recordings made before were per-track files (one webm, a track per microphone): they become
-- `tracks`. A meeting chooses the composite's layout (`recording_layout`).
CREATE TABLE recordings_next (
  id                  TEXT PRIMARY KEY,
  meeting_id          TEXT NOT NULL REFERENCES meetings (id),
  kind                TEXT NOT NULL CHECK (kind IN ('video', 'tracks', 'audio')),
  status              TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  duration_seconds    INTEGER,
  file_name           TEXT,
  content_type        TEXT,
  size_bytes          INTEGER,
  created_at          TEXT NOT NULL,
  ready_at            TEXT,
  failure_reason      TEXT,
  audio_track_owners  TEXT,
  source_recording_id TEXT,
  tracks              TEXT
) STRICT;

INSERT INTO recordings_next (id, meeting_id, kind, status, duration_seconds, file_name, content_type, size_bytes, created_at,
  ready_at, failure_reason, audio_track_owners)
SELECT id, meeting_id, CASE kind WHEN 'video' THEN 'tracks' ELSE kind END, status, duration_seconds, file_name, content_type,
  size_bytes, created_at, ready_at, failure_reason, audio_track_owners
FROM recordings;

DROP TABLE recordings;
ALTER TABLE recordings_next RENAME TO recordings;
CREATE INDEX recordings_by_meeting ON recordings (meeting_id, id);

ALTER TABLE meetings ADD COLUMN recording_layout TEXT NOT NULL DEFAULT 'active_speaker'
  CHECK (recording_layout IN ('active_speaker', 'grid'));
