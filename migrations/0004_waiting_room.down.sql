ALTER TABLE items DROP CONSTRAINT chk_items_room_rate, DROP COLUMN room_rate;
