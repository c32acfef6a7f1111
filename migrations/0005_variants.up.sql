-- A sale sells one product in 1 to 64 variants (sizes, colours), each with its
-- own stock. The sale row keeps stock_total and stock as the sums of its
-- variants', changed in the same transactions, so the sale-wide figures and
-- the row lock every persisted batch takes stay where they were.
CREATE TABLE variants (
    id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    item_id        BIGINT UNSIGNED NOT NULL,
    position       INT             NOT NULL,
    label          VARCHAR(40)     NOT NULL,
    -- NULL: the sale's price and per-user limit apply.
    price_cents    BIGINT          NULL,
    per_user_limit INT             NULL,
    image_url      VARCHAR(500)    NOT NULL DEFAULT '',
    stock_total    INT             NOT NULL,
    stock          INT             NOT NULL,
    created_at     DATETIME(3)     NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at     DATETIME(3)     NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    UNIQUE KEY uq_variants_label (item_id, label),
    KEY idx_variants_item (item_id, position),
    CONSTRAINT fk_variants_item FOREIGN KEY (item_id) REFERENCES items (id),
    CONSTRAINT chk_variants_stock CHECK (stock >= 0 AND stock <= stock_total),
    CONSTRAINT chk_variants_limit CHECK (per_user_limit IS NULL OR per_user_limit >= 1),
    CONSTRAINT chk_variants_price CHECK (price_cents IS NULL OR price_cents >= 0)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Every existing sale becomes a sale of one variant, "Default", holding its
-- stock; its orders move onto that variant.
INSERT INTO variants (item_id, position, label, stock_total, stock)
SELECT id, 0, 'Default', stock_total, stock FROM items;

ALTER TABLE items ADD COLUMN image_url VARCHAR(500) NOT NULL DEFAULT '' AFTER description;

ALTER TABLE orders ADD COLUMN variant_id BIGINT UNSIGNED NULL AFTER item_id;
UPDATE orders o JOIN variants v ON v.item_id = o.item_id SET o.variant_id = v.id;
ALTER TABLE orders
    MODIFY variant_id BIGINT UNSIGNED NOT NULL,
    ADD KEY idx_orders_variant (variant_id, status),
    ADD CONSTRAINT fk_orders_variant FOREIGN KEY (variant_id) REFERENCES variants (id);
