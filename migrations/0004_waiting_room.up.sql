-- A sale with room_rate > 0 sells through a waiting room that admits that
-- many shoppers per second; 0 sells to whoever comes first, as before.
ALTER TABLE items
    ADD COLUMN room_rate INT NOT NULL DEFAULT 0 AFTER per_user_limit,
    ADD CONSTRAINT chk_items_room_rate CHECK (room_rate >= 0);
