-- An admin can pause a live sale (a price typo at 10:00:01): purchases,
-- purchase tokens and the waiting room's admissions stop until it resumes.
-- The flag lives on the sale's row so every server reads the same answer,
-- and is copied into the Redis meta hash the reserve script checks.
ALTER TABLE items ADD COLUMN paused TINYINT(1) NOT NULL DEFAULT 0 AFTER room_rate;
