-- Whose microphone each audio track of a recording carries, in the file's audio track order: a JSON array of
-- {participant_id, name} (null for a spare track nobody used), so transcripts name their speakers. NULL for
-- recordings made before this column, and for files that did not come from the room recorder.
ALTER TABLE recordings ADD COLUMN audio_track_owners TEXT;
