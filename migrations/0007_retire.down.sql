-- Retired sales become ended ones again; a warm would copy them back into
-- Redis from MySQL, which kept everything.
ALTER TABLE items DROP KEY idx_items_retired, DROP COLUMN retired_at;
