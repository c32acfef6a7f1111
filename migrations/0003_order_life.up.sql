-- Cancelling an order changes both stores: MySQL first (status and stock, in
-- one transaction), then Redis (stock back, buyer forgotten). redis_released
-- records whether the Redis step has been done, so a crash in between is
-- finished by the sweeper's next run instead of leaving the stores apart.
ALTER TABLE orders
    ADD COLUMN cancel_reason  VARCHAR(16) NULL AFTER status,
    ADD COLUMN redis_released TINYINT(1)  NOT NULL DEFAULT 1 AFTER cancel_reason,
    ADD KEY idx_orders_unpaid (status, created_at),
    ADD KEY idx_orders_unreleased (redis_released);

-- What reconciliation found and did, kept for people to read.
CREATE TABLE reconcile_log (
    id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    item_id    BIGINT UNSIGNED NOT NULL,
    action     VARCHAR(32)     NOT NULL,
    detail     VARCHAR(1000)   NOT NULL,
    created_at DATETIME(3)     NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    KEY idx_reconcile_log_item (item_id, created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
