-- A retired sale is over for good: its Redis keys are gone and MySQL keeps
-- everything. NULL while the sale still may live in Redis. The index serves
-- the retirer's look for ended sales not yet retired.
ALTER TABLE items
    ADD COLUMN retired_at DATETIME(3) NULL,
    ADD KEY idx_items_retired (retired_at, ends_at);
