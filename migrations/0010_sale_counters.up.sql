-- What a post-sale report needs that the orders alone do not say: counts
-- decided in a server's memory or in Redis (waiting-room joins and
-- admissions, purchases shed by the admission gate or rate limited). Each
-- server adds what it counted every few seconds, so the figures outlive the
-- sale's Redis keys.
CREATE TABLE sale_counters (
    item_id BIGINT UNSIGNED NOT NULL,
    name    VARCHAR(32)     NOT NULL,
    n       BIGINT          NOT NULL DEFAULT 0,
    PRIMARY KEY (item_id, name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- When an order was paid or cancelled, by the server's clock: updated_at is
-- MySQL's and moves on any change, so it cannot date a cancellation (the
-- sell-through curve gives a cancelled order's unit back at this moment).
ALTER TABLE orders
    ADD COLUMN paid_at      DATETIME(3) NULL AFTER updated_at,
    ADD COLUMN cancelled_at DATETIME(3) NULL AFTER paid_at;

-- A sale's orders in id order, for the CSV export's keyset pages: without
-- it each page sorts the whole sale again.
ALTER TABLE orders ADD KEY idx_orders_item (item_id, id);
