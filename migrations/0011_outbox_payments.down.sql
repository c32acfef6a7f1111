ALTER TABLE items DROP COLUMN end_announced;
DROP TABLE payments;
DROP TABLE outbox;
