-- Issue 25: live captions are on from the start in a meeting with `settings.captions` (a host can still turn them
-- off, or on in any meeting).
ALTER TABLE meetings ADD COLUMN captions INTEGER NOT NULL DEFAULT 0 CHECK (captions IN (0, 1));
