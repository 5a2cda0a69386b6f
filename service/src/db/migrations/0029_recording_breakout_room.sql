-- Issue 27: a breakout room of a recorded meeting is recorded on its own; its recordings (tracks and composite) name
-- the breakout room they were made in. Null for the main room's recordings and for recordings made before.
ALTER TABLE recordings ADD COLUMN breakout_room_id TEXT;
