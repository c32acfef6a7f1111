CREATE TABLE items (
    id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    name           VARCHAR(200)    NOT NULL,
    description    TEXT            NOT NULL,
    price_cents    BIGINT          NOT NULL,
    stock_total    INT             NOT NULL,
    -- stock is the authoritative available stock: stock_total minus every
    -- persisted active order. The CHECK makes overselling impossible even for
    -- a buggy writer.
    stock          INT             NOT NULL,
    per_user_limit INT             NOT NULL DEFAULT 1,
    starts_at      DATETIME(3)     NOT NULL,
    ends_at        DATETIME(3)     NOT NULL,
    created_at     DATETIME(3)     NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at     DATETIME(3)     NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    KEY idx_items_ends_at (ends_at),
    CONSTRAINT chk_items_stock CHECK (stock >= 0 AND stock <= stock_total),
    CONSTRAINT chk_items_limit CHECK (per_user_limit >= 1),
    CONSTRAINT chk_items_window CHECK (ends_at > starts_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
