CREATE TABLE orders (
    id              CHAR(26)        NOT NULL, -- the ULID the shopper got back
    item_id         BIGINT UNSIGNED NOT NULL,
    user_id         VARCHAR(64)     NOT NULL,
    quantity        INT             NOT NULL,
    status          VARCHAR(16)     NOT NULL DEFAULT 'confirmed',
    idempotency_key VARCHAR(128)    NULL,
    -- The Redis stream entry the order came from. Entry ids grow per item, so
    -- "orders persisted after entry X" is a range scan; that is what lets the
    -- consistency check compare Redis and MySQL without stopping the sale.
    stream_ms       BIGINT UNSIGNED NOT NULL DEFAULT 0,
    stream_seq      BIGINT UNSIGNED NOT NULL DEFAULT 0,
    -- NULL once cancelled, so the unique key below allows one active order per
    -- (item, user) and any number of cancelled ones. MariaDB has no partial
    -- indexes; a generated column is the portable way.
    active_user_id  VARCHAR(64) AS (IF(status = 'cancelled', NULL, user_id)) STORED,
    created_at      DATETIME(3)     NOT NULL,
    updated_at      DATETIME(3)     NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    UNIQUE KEY uq_orders_active (item_id, active_user_id),
    KEY idx_orders_user (user_id, created_at),
    KEY idx_orders_stream (item_id, stream_ms, stream_seq),
    CONSTRAINT fk_orders_item FOREIGN KEY (item_id) REFERENCES items (id),
    CONSTRAINT chk_orders_quantity CHECK (quantity >= 1),
    CONSTRAINT chk_orders_status CHECK (status IN ('confirmed', 'paid', 'cancelled'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
