-- Entry ids that hide entrants (issue 25): an entry id is now
-- hex(SHA-256(salt || entry_secret || user_id)), where entry_secret is 32
-- bytes the shopper's device chose (or the server drew, when it sent none).
-- Only the shopper and the server know it, so nobody can tell from the
-- published entries whether a given user id entered. Rows entered before
-- this migration keep their legacy ids, hex(SHA-256(salt || user_id)), and
-- a NULL secret.
ALTER TABLE draw_entries ADD COLUMN entry_secret BINARY(32) NULL AFTER user_id;
