-- A draw made since the upgrade and not drawn yet has no seed in MySQL, and
-- the code before it would draw it with an empty seed: downgrade only once
-- every such draw is drawn or over.
ALTER TABLE items
    DROP COLUMN draw_commitment,
    DROP COLUMN draw_key_id,
    DROP COLUMN draw_nonce;
