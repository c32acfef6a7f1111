ALTER TABLE orders DROP COLUMN unit_price_cents;
ALTER TABLE items DROP KEY idx_items_end_announced, DROP COLUMN end_announced;
DROP TABLE payments;
DROP TABLE outbox;
