-- Events for the shop's systems (webhooks), one row per event and endpoint,
-- written in the same transaction as the change each announces, so no
-- change commits without its event and no event without its change. A
-- dispatcher delivers them at least once, in seq order per subject.
CREATE TABLE outbox (
    seq             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    event_id        VARCHAR(40)     NOT NULL, -- the id receivers dedupe by
    endpoint        VARCHAR(255)    NOT NULL,
    type            VARCHAR(40)     NOT NULL,
    -- What the event is about ("order:<id>", "sale:<id>"): a subject's
    -- events are delivered in seq order, one at a time. Rows of one subject
    -- are written under that order's or sale's row lock, so their seq order
    -- is their commit order.
    subject         VARCHAR(64)     NOT NULL,
    body            MEDIUMTEXT      NOT NULL, -- the exact bytes signed and sent
    state           VARCHAR(16)     NOT NULL DEFAULT 'pending',
    attempts        INT             NOT NULL DEFAULT 0,
    created_at      DATETIME(3)     NOT NULL,
    next_attempt_at DATETIME(3)     NOT NULL,
    give_up_at      DATETIME(3)     NOT NULL,
    delivered_at    DATETIME(3)     NULL,
    last_status     INT             NULL,     -- the receiver's HTTP status; NULL when none came back
    last_error      VARCHAR(255)    NULL,
    PRIMARY KEY (seq),
    -- Each endpoint's due deliveries, counts by state, pruning.
    KEY idx_outbox_due (state, endpoint, next_attempt_at),
    -- A subject's earlier rows, which a delivery waits for. A subject has a
    -- few rows per endpoint, so the key leaves the endpoint out: every
    -- order's events are written with it, and short keys cost MySQL less.
    KEY idx_outbox_subject (subject),
    CONSTRAINT chk_outbox_state CHECK (state IN ('pending', 'delivered', 'failed'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Every payment callback the provider sent, by its reference: a repeated
-- callback answers what the first decided, and a refused one (wrong amount)
-- stays on record.
CREATE TABLE payments (
    provider_ref   VARCHAR(128)    NOT NULL,
    order_id       CHAR(26)        NOT NULL,
    status         VARCHAR(16)     NOT NULL, -- what the provider said: paid, failed
    amount_cents   BIGINT          NOT NULL,
    expected_cents BIGINT          NOT NULL,
    outcome        VARCHAR(32)     NOT NULL, -- what seckill did about it
    received_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (provider_ref),
    KEY idx_payments_order (order_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Whether sale.ended has been written for the sale. A sale an admin ends is
-- announced in that change; one that reaches its end by the clock is
-- announced by a job. Sales already over are not announced again.
ALTER TABLE items ADD COLUMN end_announced BOOLEAN NOT NULL DEFAULT FALSE,
    ADD KEY idx_items_end_announced (end_announced, ends_at);
UPDATE items SET end_announced = TRUE WHERE ends_at <= UTC_TIMESTAMP(3);

-- What one unit of the order cost when it was persisted: a payment is
-- checked against it, and events show it, whatever the price is changed to
-- later. NULL for orders persisted before it was kept (their sale's price
-- now applies).
ALTER TABLE orders ADD COLUMN unit_price_cents BIGINT NULL AFTER quantity;
