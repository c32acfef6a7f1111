-- Every admin action that changes something, with who did it (a fingerprint
-- of the credential, never the credential), the request it came in, and the
-- values before and after. Rows are only ever inserted.
CREATE TABLE audit_log (
    id         BIGINT NOT NULL AUTO_INCREMENT,
    at         DATETIME(3) NOT NULL,
    actor      VARCHAR(64) NOT NULL,
    request_id VARCHAR(64) NOT NULL DEFAULT '',
    action     VARCHAR(32) NOT NULL,
    item_id    BIGINT NULL,
    `before`   JSON NULL,
    `after`    JSON NULL,
    PRIMARY KEY (id),
    -- The log is read newest first by id (the primary key), for one sale or
    -- one kind of action at a time.
    KEY idx_audit_item (item_id, id),
    KEY idx_audit_action (action, id)
) ENGINE=InnoDB;
