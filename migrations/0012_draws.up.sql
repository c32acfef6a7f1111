-- Draw sales (issue 17): shoppers enter during a window, winners are drawn
-- at its close from a seed committed to before the first entry, and a unit
-- nobody buys passes down the same ranking. A first-come sale leaves every
-- draw column NULL.
ALTER TABLE items
    ADD COLUMN mode                    VARCHAR(16) NOT NULL DEFAULT 'first_come',
    ADD COLUMN entries_open_at         DATETIME(3) NULL,
    ADD COLUMN entries_close_at        DATETIME(3) NULL,
    ADD COLUMN purchase_window_seconds INT         NULL,
    ADD COLUMN draw_seed               BINARY(32)  NULL, -- secret until drawn_at
    ADD COLUMN draw_salt               BINARY(16)  NULL, -- public from entries_open_at
    ADD COLUMN drawn_at                DATETIME(3) NULL,
    -- The draw job's scan: draws due, and drawn sales whose units still move.
    ADD KEY idx_items_draw (mode, drawn_at, entries_close_at);

-- The units each variant had when it was drawn: the published draw is
-- checked against these, whatever an admin changes later.
ALTER TABLE variants ADD COLUMN draw_units INT NULL;

CREATE TABLE draw_entries (
    item_id     BIGINT UNSIGNED NOT NULL,
    -- hex(SHA-256(salt || user_id)): public, and neither the server nor the
    -- shopper can choose it.
    entry_id    CHAR(64)        NOT NULL,
    user_id     VARCHAR(64)     NOT NULL,
    variant_id  BIGINT UNSIGNED NOT NULL,
    entered_at  DATETIME(3)     NOT NULL,
    -- 1-based place in its variant's ranking, set by the draw.
    place       INT             NULL,
    -- A unit offered to this entry: at the draw (place <= draw_units) or
    -- by backfill. offer_state is open, bought or expired.
    offer_state VARCHAR(8)      NULL,
    offered_at  DATETIME(3)     NULL,
    deadline    DATETIME(3)     NULL,
    PRIMARY KEY (item_id, entry_id),
    UNIQUE KEY uq_draw_entries_user (item_id, user_id),
    -- The next places of a variant to offer, and its open offers.
    KEY idx_draw_entries_place (item_id, variant_id, offer_state, place),
    CONSTRAINT fk_draw_entries_item FOREIGN KEY (item_id) REFERENCES items (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
