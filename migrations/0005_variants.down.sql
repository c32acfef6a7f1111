-- Back to one stock counter per sale. The sale row already holds the sums of
-- its variants, so no stock is lost; what the variants told apart is.
ALTER TABLE orders DROP FOREIGN KEY fk_orders_variant;
ALTER TABLE orders DROP KEY idx_orders_variant, DROP COLUMN variant_id;
ALTER TABLE items DROP COLUMN image_url;
DROP TABLE variants;
