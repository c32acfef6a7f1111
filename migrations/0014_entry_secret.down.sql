-- Entries made with a secret keep ids nobody can recompute without it:
-- going down keeps those ids, and drops only the secrets.
ALTER TABLE draw_entries DROP COLUMN entry_secret;
