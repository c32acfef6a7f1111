-- The shop's list pages through the open sales (live and upcoming) by
-- (starts_at, id) and through the ended ones by (ends_at, id), newest first:
-- with both in an index a page reads about as many rows as it shows,
-- however many sales ended before. idx_items_ends_at (0001) serves the
-- ended ones, InnoDB appending the primary key to it; this one serves the
-- upcoming ones.
CREATE INDEX idx_items_starts_at ON items (starts_at, id);
