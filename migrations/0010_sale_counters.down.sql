ALTER TABLE orders DROP KEY idx_orders_item;
ALTER TABLE orders DROP COLUMN cancelled_at, DROP COLUMN paid_at;
DROP TABLE IF EXISTS sale_counters;
