-- The IANA time zone a meeting was planned in (scheduled_at keeps only an offset, which says nothing about
-- daylight saving or the zone's name); NULL for meetings created without one.
ALTER TABLE meetings ADD COLUMN time_zone TEXT;

-- The dashboard shows a meeting's transcription and summary jobs (status, failure, Retry): find them by subject.
CREATE INDEX jobs_transcribe_by_recording ON jobs (json_extract(payload, '$.recording_id'), created_at) WHERE kind = 'transcribe';
CREATE INDEX jobs_summarize_by_meeting ON jobs (json_extract(payload, '$.meeting_id'), created_at) WHERE kind = 'summarize';
