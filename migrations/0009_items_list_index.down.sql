DROP INDEX idx_items_starts_at ON items;
