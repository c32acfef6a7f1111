DROP TABLE IF EXISTS reconcile_log;
ALTER TABLE orders DROP KEY idx_orders_unreleased, DROP KEY idx_orders_unpaid,
    DROP COLUMN redis_released, DROP COLUMN cancel_reason;
