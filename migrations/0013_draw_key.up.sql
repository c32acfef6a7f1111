-- A draw's seed no longer sits in MySQL during its entries (issue 25): it is
-- HMAC-SHA256(key, "seckill draw seed v1" || id (8 bytes, big-endian) ||
-- draw_nonce) under the key draw_key_id names, which only the servers hold
-- (SECKILL_DRAW_KEY), and is written to draw_seed by the draw's
-- transaction, public from then on.
-- draw_commitment is SHA-256 of the seed, published from entries_open_at.
ALTER TABLE items
    ADD COLUMN draw_nonce      BINARY(32)  NULL,
    ADD COLUMN draw_key_id     VARCHAR(16) NULL,
    ADD COLUMN draw_commitment BINARY(32)  NULL;

-- Draws made before: their seed is already stored, and they are drawn from
-- it (draw_nonce NULL) if SECKILL_DRAW_LEGACY_SALES lists them; the
-- commitment they published is its hash.
UPDATE items SET draw_commitment = UNHEX(SHA2(draw_seed, 256)) WHERE draw_seed IS NOT NULL;
