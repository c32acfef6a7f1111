DROP TABLE draw_entries;
ALTER TABLE variants DROP COLUMN draw_units;
ALTER TABLE items
    DROP KEY idx_items_draw,
    DROP COLUMN drawn_at,
    DROP COLUMN draw_salt,
    DROP COLUMN draw_seed,
    DROP COLUMN purchase_window_seconds,
    DROP COLUMN entries_close_at,
    DROP COLUMN entries_open_at,
    DROP COLUMN mode;
